import type { ItemField } from '@openresponses/types';
import { invalidRequest } from '../../errors.js';
import { callArgumentsOf } from '../call-arguments.js';
import type { ModelRequest } from '../provider.js';
import { toGeminiSchema } from './json-schema.js';
import { type ThinkingStyle, thinkingConfigOf, thinkingStyleOf } from './thinking.js';
import type {
  GeminiContent,
  GeminiFunctionDeclaration,
  GeminiGenerationConfig,
  GeminiRequest,
  GeminiRequestPart,
  ThoughtState,
} from './wire.js';

/** How a turn becomes a Gemini request: the upstream's model name and the route's settings. */
export interface GeminiRequestSettings {
  /** The model name the upstream knows (`gemini-2.5-flash`). */
  upstreamModel: string;
  /**
   * Body fields sent when the request does not set them (`safetySettings`, `cachedContent`, …); a
   * `generationConfig` here is merged under the request's (`stopSequences`, `topK`, `seed`, …).
   */
  defaults?: Record<string, unknown>;
  /** How the model takes `reasoning.effort` when its name does not say (see thinking.ts). */
  thinking?: ThinkingStyle;
  /**
   * The thought state of each reasoning item this server sealed (opened by the provider before the call); a
   * reasoning item without an entry is left out, never sent as a part the gateway made up.
   */
  thoughtsOf?: ReadonlyMap<ItemField, ThoughtState>;
}

/**
 * A Responses turn as a Gemini `GenerateContentRequest`: `instructions` and system/developer messages become
 * `systemInstruction`; user messages and function outputs become `user` contents, assistant messages, sealed
 * thoughts and function calls `model` contents (adjacent ones of a role joined, so parallel results go back in
 * one turn); function tools become `functionDeclarations` in Gemini's schema dialect; `reasoning` becomes
 * `thinkingConfig`; `text.format` `json_schema` becomes `responseMimeType` + `responseJsonSchema`. A setting
 * Gemini has no form of is a 400 naming it, never left out.
 */
export function toGeminiRequest(request: ModelRequest, settings: GeminiRequestSettings): GeminiRequest {
  refuseUnsupported(request);
  const { system, contents } = toContents(request, settings.thoughtsOf);
  const defaults = settings.defaults ?? {};
  const body: GeminiRequest = Object.assign({}, defaults, { contents }) as GeminiRequest;
  if (system.length > 0) body.systemInstruction = { parts: system.map((text) => ({ text })) };

  const { toolPolicy } = request;
  if (request.tools.length > 0) {
    const allowed = request.tools.filter((tool) => toolPolicy.allowed.includes(tool.name));
    // With no tool allowed, NONE keeps the tools' descriptions (the model may still mention them).
    const offered = toolPolicy.mode === 'none' || allowed.length === 0 ? request.tools : allowed;
    const declarations = offered.map((tool): GeminiFunctionDeclaration => {
      const parameters = toGeminiSchema(tool.parameters, `tools[${request.tools.indexOf(tool)}].parameters`);
      return Object.assign(
        { name: tool.name },
        tool.description ? { description: tool.description } : {},
        parameters ? { parameters } : {},
      );
    });
    body.tools = [{ functionDeclarations: declarations }];
    if (toolPolicy.mode === 'none' || allowed.length === 0)
      body.toolConfig = { functionCallingConfig: { mode: 'NONE' } };
    else if (toolPolicy.forced)
      body.toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [toolPolicy.forced] } };
    else if (toolPolicy.mode === 'required')
      body.toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: allowed.map((t) => t.name) } };
    // Strict tools: VALIDATED holds calls to their schemas (ANY already does).
    else body.toolConfig = { functionCallingConfig: { mode: offered.some((t) => t.strict) ? 'VALIDATED' : 'AUTO' } };
  }

  const config: GeminiGenerationConfig = Object.assign(
    {},
    defaults.generationConfig && typeof defaults.generationConfig === 'object'
      ? (defaults.generationConfig as GeminiGenerationConfig)
      : {},
  );
  if (request.maxOutputTokens !== null) config.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== null) config.temperature = request.temperature;
  if (request.topP !== null) config.topP = request.topP;
  if (request.presencePenalty !== null && request.presencePenalty !== 0)
    config.presencePenalty = request.presencePenalty;
  if (request.frequencyPenalty !== null && request.frequencyPenalty !== 0)
    config.frequencyPenalty = request.frequencyPenalty;
  const format = request.text?.format as { type?: string; schema?: unknown } | undefined;
  if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = format.schema ?? {};
  } else if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  const thinking = thinkingConfigOf(
    request.reasoning,
    settings.upstreamModel,
    thinkingStyleOf(settings.upstreamModel, settings.thinking),
  );
  if (thinking) config.thinkingConfig = Object.assign({}, config.thinkingConfig, thinking);
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return body;
}

/** Settings with no Gemini form: a 400 naming the field rather than an answer that ignored it. */
function refuseUnsupported(request: ModelRequest): void {
  const refuse = (param: string, why: string) =>
    invalidRequest('unsupported_parameter', `A Gemini upstream ${why}; leave '${param}' out.`, param);
  if (request.hostedTools.length > 0)
    throw invalidRequest(
      'unsupported_tool',
      `Tools of type '${request.hostedTools[0]!.type}' cannot be served by a Gemini upstream; only function tools can.`,
      'tools',
    );
  if (!request.parallelToolCalls && request.tools.length > 0 && request.toolPolicy.mode !== 'none')
    throw refuse('parallel_tool_calls', 'cannot be kept to one function call per turn');
  if (request.topLogprobs) throw refuse('top_logprobs', 'reports no log probabilities through this gateway');
  if (request.safetyIdentifier) throw refuse('safety_identifier', 'takes no end-user identifier');
  // `prompt_cache_key` is left out, not refused: a cache hint never changes the answer (Gemini caches
  // through cachedContent), and agents such as the Codex CLI send one on every request.
  if (request.serviceTier && !['auto', 'default'].includes(request.serviceTier))
    throw refuse('service_tier', 'has no service tiers');
  const verbosity = (request.text as { verbosity?: string | null } | null)?.verbosity;
  if (verbosity && verbosity !== 'medium') throw refuse('text.verbosity', 'has no verbosity setting');
}

type Part = { type: string; text?: string; refusal?: string; [key: string]: unknown };

function toContents(
  request: ModelRequest,
  thoughtsOf: ReadonlyMap<ItemField, ThoughtState> | undefined,
): { system: string[]; contents: GeminiContent[] } {
  const system: string[] = [];
  if (request.instructions) system.push(request.instructions);
  const contents: GeminiContent[] = [];
  /** A signature Gemini put on the part that followed a reasoning item: it goes on the next model part. */
  let pendingSignature: string | undefined;
  /** The parts of the last content when it has this role, else a new content's. */
  const turn = (role: 'user' | 'model'): GeminiRequestPart[] => {
    const last = contents.at(-1);
    if (last?.role === role) return last.parts;
    flushSignature();
    const next: GeminiContent = { role, parts: [] };
    contents.push(next);
    return next.parts;
  };
  /** A model part, carrying the signature a reasoning item before it held. */
  const modelPart = (part: GeminiRequestPart) => {
    const parts = turn('model');
    if (pendingSignature !== undefined && ('text' in part || 'functionCall' in part)) {
      (part as { thoughtSignature?: string }).thoughtSignature = pendingSignature;
      pendingSignature = undefined;
    }
    parts.push(part);
  };
  /** A signature whose part never came (the turn ended first) goes back as Gemini sent it: on an empty part. */
  function flushSignature(): void {
    if (pendingSignature === undefined) return;
    const signature = pendingSignature;
    pendingSignature = undefined;
    contents.at(-1)?.parts.push({ text: '', thoughtSignature: signature });
  }
  const callNames = new Map<string, string>();
  for (const item of request.items as Array<ItemField & Record<string, unknown>>) {
    switch (item.type) {
      case 'message': {
        const role = item.role as string;
        const parts = (
          typeof item.content === 'string' ? [{ type: 'input_text', text: item.content }] : item.content
        ) as Part[];
        if (role === 'system' || role === 'developer') {
          const text = parts.map((p) => p.text ?? '').join('');
          if (text) system.push(text);
        } else if (role === 'assistant') {
          const text = parts.map((p) => (p.type === 'refusal' ? p.refusal : p.text) ?? '').join('');
          if (text) modelPart({ text });
        } else {
          const userParts = partsOf(parts, 'input');
          if (userParts.length > 0) turn('user').push(...userParts);
        }
        break;
      }
      case 'reasoning': {
        const state = thoughtsOf?.get(item);
        if (!state) break;
        if (state.kind === 'thought')
          turn('model').push({ text: state.text, thought: true, thoughtSignature: state.signature });
        else if (state.on === 'next') {
          flushSignature();
          turn('model');
          pendingSignature = state.signature;
        } else {
          const last = turn('model').at(-1) as
            | { text?: string; thought?: boolean; thoughtSignature?: string }
            | undefined;
          if (last && typeof last.text === 'string' && !last.thought && last.thoughtSignature === undefined)
            last.thoughtSignature = state.signature;
          else turn('model').push({ text: '', thoughtSignature: state.signature });
        }
        break;
      }
      case 'function_call': {
        const callId = item.call_id as string;
        const name = item.name as string;
        callNames.set(callId, name);
        const args = callArgumentsOf(item, 'a Gemini upstream');
        if (!args || typeof args !== 'object' || Array.isArray(args))
          throw invalidRequest(
            'invalid_value',
            `The arguments of function call '${callId}' are not a JSON object; a Gemini upstream takes call arguments as an object.`,
            'input',
          );
        // The call id goes with the call and its response (FunctionCall.id, FunctionResponse.id: set by the client to match them).
        modelPart({ functionCall: { name, args: args as Record<string, unknown>, id: callId } });
        break;
      }
      case 'function_call_output': {
        const callId = item.call_id as string;
        const name = callNames.get(callId);
        if (name === undefined)
          throw invalidRequest(
            'invalid_value',
            `The function call '${callId}' this output answers is not in the conversation; a Gemini upstream needs the function's name with its result.`,
            'input',
          );
        turn('user').push({ functionResponse: { name, response: { output: outputText(item.output) }, id: callId } });
        break;
      }
      default:
        // Compaction items arrive expanded; vendor items have no Gemini form.
        break;
    }
  }
  flushSignature();
  return { system, contents };
}

/** A function output as text: a string as it is, content parts' text joined (other parts have no functionResponse form here). */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  return (output as Part[])
    .map((part) => {
      if (part.type === 'input_text' || part.type === 'output_text') return part.text ?? '';
      throw invalidRequest(
        'unsupported_content',
        `A Gemini upstream takes function outputs as text; a '${part.type}' part cannot be sent.`,
        'input',
      );
    })
    .join('');
}

function partsOf(parts: Part[], param: string): GeminiRequestPart[] {
  const out: GeminiRequestPart[] = [];
  for (const part of parts) {
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        if (part.text) out.push({ text: part.text });
        break;
      case 'input_image':
        out.push(imagePart(part, param));
        break;
      case 'input_file':
        out.push(filePart(part, param));
        break;
      default:
        throw invalidRequest(
          'unsupported_content',
          `A Gemini upstream takes text, images and files; a '${part.type}' part cannot be sent.`,
          param,
        );
    }
  }
  return out;
}

const DATA_URL = /^data:([^;,]+)((?:;[^;,]*)*?);base64,(.*)$/s;

function imagePart(part: Part, param: string): GeminiRequestPart {
  const url = typeof part.image_url === 'string' ? part.image_url : '';
  const data = DATA_URL.exec(url);
  if (data) return { inlineData: { mimeType: data[1]!, data: data[3]! } };
  if (/^https?:\/\//.test(url)) return fileData(url, mimeFromName(url));
  throw invalidRequest(
    'unsupported_content',
    'A Gemini upstream takes images as base64 data URLs or http(s) URLs (not file ids).',
    param,
  );
}

function filePart(part: Part, param: string): GeminiRequestPart {
  const filename = typeof part.filename === 'string' ? part.filename : undefined;
  if (typeof part.file_data === 'string') {
    const data = DATA_URL.exec(part.file_data);
    if (data) return { inlineData: { mimeType: data[1]!, data: data[3]! } };
    const mimeType = filename ? mimeFromName(filename) : undefined;
    if (mimeType && !part.file_data.startsWith('data:')) return { inlineData: { mimeType, data: part.file_data } };
  }
  if (typeof part.file_url === 'string' && /^https?:\/\//.test(part.file_url))
    return fileData(part.file_url, mimeFromName(filename ?? part.file_url));
  throw invalidRequest(
    'unsupported_content',
    'A Gemini upstream takes files as base64 data URLs (or base64 with a filename that says the type) or http(s) file_url (not file ids).',
    param,
  );
}

const fileData = (fileUri: string, mimeType: string | undefined): GeminiRequestPart => ({
  fileData: mimeType ? { fileUri, mimeType } : { fileUri },
});

const MIME_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  json: 'application/json',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
};

function mimeFromName(name: string): string | undefined {
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(name)?.[1]?.toLowerCase();
  return extension ? MIME_TYPES[extension] : undefined;
}

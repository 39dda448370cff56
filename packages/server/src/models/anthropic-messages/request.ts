import type { ItemField } from '@openresponses/types';
import { invalidRequest } from '../../errors.js';
import { parseDataUrl } from '../../data-url.js';
import { callArgumentsOf } from '../call-arguments.js';
import type { ModelRequest } from '../provider.js';
import { ADAPTIVE_EFFORT, BUDGET_TOKENS, generationOf, MIN_BUDGET_TOKENS } from './generation.js';
import type {
  AnthropicDocumentSource,
  AnthropicImageSource,
  AnthropicMessageParam,
  AnthropicRequest,
  AnthropicRequestBlock,
  AnthropicToolChoice,
} from './wire.js';

/** `max_tokens` when the request sets no `max_output_tokens` (Messages requires the field). */
export const DEFAULT_MAX_TOKENS = 8192;

/** What a thinking block needs to go back upstream: this family's state, sealed inside `encrypted_content`. */
export type ThinkingState =
  | { kind: 'thinking'; thinking: string; signature: string }
  | { kind: 'redacted'; data: string };

/** How a turn becomes a Messages request: the upstream's model name and the route's settings. */
export interface AnthropicRequestSettings {
  /** The model name the upstream knows. */
  upstreamModel: string;
  /** Body fields sent when the request does not set them (`stop_sequences`, `top_k`, `metadata`, …). */
  defaults?: Record<string, unknown>;
  /** `max_tokens` when the request sets no `max_output_tokens` (default 8,192). */
  defaultMaxTokens?: number;
  /** How the model takes `reasoning.effort` when its name does not say (see generation.ts). */
  thinking?: 'adaptive' | 'budget' | 'none';
  /**
   * The thinking state of each reasoning item this server sealed (opened by the provider before the call);
   * a reasoning item without an entry is left out, never sent as a block the gateway made up.
   */
  thinkingOf?: ReadonlyMap<ItemField, ThinkingState>;
}

/**
 * A Responses turn as a Messages request: `instructions` and system/developer messages become `system`;
 * user, assistant, reasoning, function call and function output items become alternating user and
 * assistant turns (the first a user turn), with each turn's thinking blocks first and its `tool_result`
 * blocks first; `reasoning.effort` becomes thinking in the form the model generation takes.
 */
export function toAnthropicRequest(request: ModelRequest, settings: AnthropicRequestSettings): AnthropicRequest {
  if (request.hostedTools.length > 0)
    throw invalidRequest(
      'unsupported_tool',
      `Tools of type '${request.hostedTools[0]!.type}' cannot be served by an Anthropic Messages upstream; only function tools can.`,
      'tools',
    );
  const { system, messages } = toMessages(request, settings.thinkingOf);
  const generation = generationOf(settings.upstreamModel, settings.thinking);
  const body: AnthropicRequest = Object.assign({}, settings.defaults, {
    model: settings.upstreamModel,
    max_tokens: request.maxOutputTokens ?? settings.defaultMaxTokens ?? DEFAULT_MAX_TOKENS,
    messages,
  }) as AnthropicRequest;
  if (system.length > 0) body.system = system.map((text) => ({ type: 'text' as const, text }));
  if (request.stream) body.stream = true;

  const { toolPolicy } = request;
  if (request.tools.length > 0) {
    const allowed = request.tools.filter((tool) => toolPolicy.allowed.includes(tool.name));
    // With no tool allowed, `none` keeps the tools' descriptions (the model may still mention them).
    const tools = toolPolicy.mode === 'none' || allowed.length === 0 ? request.tools : allowed;
    body.tools = tools.map((tool) =>
      Object.assign(
        { name: tool.name, input_schema: (tool.parameters as Record<string, unknown> | null) ?? emptySchema() },
        tool.description ? { description: tool.description } : {},
        tool.strict ? { strict: true } : {},
      ),
    );
    body.tool_choice = toolChoice(request);
  }

  const format = request.text?.format;
  if (format?.type === 'json_schema') {
    const schema = (format as { schema?: Record<string, unknown> }).schema;
    body.output_config = { format: { type: 'json_schema', schema: schema ?? {} } };
  } else if ((format?.type as string | undefined) === 'json_object')
    throw invalidRequest(
      'unsupported_parameter',
      'An Anthropic Messages upstream has no JSON mode without a schema; use text.format json_schema.',
      'text.format',
    );

  const effort = request.reasoning?.effort;
  const thinking = effort && effort !== 'none' && generation.thinking !== 'none';
  if (thinking && generation.thinking === 'adaptive') {
    body.thinking = { type: 'adaptive' };
    body.output_config = Object.assign({}, body.output_config, { effort: ADAPTIVE_EFFORT[effort] ?? effort });
  } else if (thinking) {
    let budget = BUDGET_TOKENS[effort] ?? BUDGET_TOKENS.medium!;
    if (request.maxOutputTokens === null) body.max_tokens = budget + (settings.defaultMaxTokens ?? DEFAULT_MAX_TOKENS);
    // The budget counts within max_tokens and must be below it.
    else budget = Math.min(budget, body.max_tokens - 1);
    if (budget < MIN_BUDGET_TOKENS)
      throw invalidRequest(
        'unsupported_parameter',
        `Thinking on ${settings.upstreamModel} needs max_output_tokens above ${MIN_BUDGET_TOKENS}; it is ${body.max_tokens}.`,
        'max_output_tokens',
      );
    body.thinking = { type: 'enabled', budget_tokens: budget };
  }

  if (body.thinking) {
    // Anthropic: thinking is not compatible with other temperatures, top_p under 0.95, or forced tool use.
    if (request.temperature !== null && request.temperature !== 1)
      throw invalidRequest(
        'unsupported_parameter',
        `temperature must be 1 (or unset) when reasoning is on for ${settings.upstreamModel}.`,
        'temperature',
      );
    if (request.topP !== null && request.topP < 0.95)
      throw invalidRequest(
        'unsupported_parameter',
        `top_p must be at least 0.95 when reasoning is on for ${settings.upstreamModel}.`,
        'top_p',
      );
    if (body.tool_choice?.type === 'any' || body.tool_choice?.type === 'tool')
      throw invalidRequest(
        'unsupported_parameter',
        `${settings.upstreamModel} cannot be made to call a tool while reasoning is on; use tool_choice auto or turn reasoning off.`,
        'tool_choice',
      );
  }
  if (request.temperature !== null) body.temperature = request.temperature;
  if (request.topP !== null) {
    if (generation.exclusiveSampling && request.temperature !== null)
      throw invalidRequest(
        'unsupported_parameter',
        `${settings.upstreamModel} takes temperature or top_p, not both.`,
        'top_p',
      );
    body.top_p = request.topP;
  }
  if (request.safetyIdentifier) body.metadata = { user_id: request.safetyIdentifier };
  return body;
}

const emptySchema = () => ({ type: 'object', properties: {} });

function toolChoice(request: ModelRequest): AnthropicToolChoice {
  const { toolPolicy } = request;
  if (toolPolicy.mode === 'none' || toolPolicy.allowed.length === 0) return { type: 'none' };
  const parallel = request.parallelToolCalls ? {} : { disable_parallel_tool_use: true };
  if (toolPolicy.forced) return { type: 'tool', name: toolPolicy.forced, ...parallel };
  return { type: toolPolicy.mode === 'required' ? 'any' : 'auto', ...parallel };
}

type Part = { type: string; text?: string; refusal?: string; [key: string]: unknown };

function toMessages(
  request: ModelRequest,
  thinkingOf: ReadonlyMap<ItemField, ThinkingState> | undefined,
): { system: string[]; messages: AnthropicMessageParam[] } {
  const system: string[] = [];
  if (request.instructions) system.push(request.instructions);
  const messages: AnthropicMessageParam[] = [];
  /** Adds blocks to the last turn when it has this role, else opens a turn. */
  const turn = (role: 'user' | 'assistant'): AnthropicRequestBlock[] => {
    const last = messages.at(-1);
    if (last?.role === role) return last.content;
    const next: AnthropicMessageParam = { role, content: [] };
    messages.push(next);
    return next.content;
  };
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
          const blocks = turn('assistant');
          for (const part of parts) {
            const text = part.type === 'refusal' ? part.refusal : part.text;
            // Messages refuses empty text blocks.
            if (text) blocks.push({ type: 'text', text });
          }
        } else turn('user').push(...userBlocks(parts, 'input'));
        break;
      }
      case 'reasoning': {
        const state = thinkingOf?.get(item);
        if (!state) break;
        turn('assistant').push(
          state.kind === 'thinking'
            ? { type: 'thinking', thinking: state.thinking, signature: state.signature }
            : { type: 'redacted_thinking', data: state.data },
        );
        break;
      }
      case 'function_call': {
        const input = callArgumentsOf(item, 'an Anthropic upstream');
        turn('assistant').push({ type: 'tool_use', id: item.call_id as string, name: item.name as string, input });
        break;
      }
      case 'function_call_output': {
        const output = item.output;
        const content =
          typeof output === 'string'
            ? output
            : (userBlocks(output as Part[], 'input') as Array<
                Extract<AnthropicRequestBlock, { type: 'text' | 'image' | 'document' }>
              >);
        const blocks = turn('user');
        // tool_result blocks come first in their user turn.
        let at = 0;
        while (at < blocks.length && blocks[at]!.type === 'tool_result') at++;
        blocks.splice(at, 0, { type: 'tool_result', tool_use_id: item.call_id as string, content });
        break;
      }
      default:
        // Compaction items arrive expanded; vendor items have no Messages form.
        break;
    }
  }
  if (messages[0]?.role !== 'user')
    messages.unshift({ role: 'user', content: [{ type: 'text', text: '(The conversation starts here.)' }] });
  return { system, messages };
}

function userBlocks(parts: Part[], param: string): AnthropicRequestBlock[] {
  const blocks: AnthropicRequestBlock[] = [];
  for (const part of parts) {
    switch (part.type) {
      case 'input_image':
        blocks.push({ type: 'image', source: imageSource(part, param) });
        break;
      case 'input_file':
        blocks.push(
          Object.assign(
            { type: 'document' as const, source: documentSource(part, param) },
            typeof part.filename === 'string' ? { title: part.filename } : {},
          ),
        );
        break;
      default:
        if (part.text) blocks.push({ type: 'text', text: part.text });
    }
  }
  return blocks;
}

function imageSource(part: Part, param: string): AnthropicImageSource {
  if (typeof part.file_id === 'string') return { type: 'file', file_id: part.file_id };
  const url = typeof part.image_url === 'string' ? part.image_url : '';
  // Data URLs were read when the input was (parseDataUrl): a malformed one never gets here.
  const data = parseDataUrl(url);
  if (data?.base64) return { type: 'base64', media_type: data.mediaType, data: data.data };
  if (/^https?:\/\//.test(url)) return { type: 'url', url };
  throw invalidRequest(
    'unsupported_content',
    'An Anthropic Messages upstream takes images as http(s) URLs, base64 data URLs or file ids.',
    param,
  );
}

function documentSource(part: Part, param: string): AnthropicDocumentSource {
  if (typeof part.file_id === 'string') return { type: 'file', file_id: part.file_id };
  if (typeof part.file_url === 'string' && /^https?:\/\//.test(part.file_url))
    return { type: 'url', url: part.file_url };
  if (typeof part.file_data === 'string') {
    const data = parseDataUrl(part.file_data);
    const pdf = typeof part.filename === 'string' && /\.pdf$/i.test(part.filename);
    const mediaType = data ? data.mediaType : pdf ? 'application/pdf' : undefined;
    const base64 = data ? (data.base64 ? data.data : undefined) : part.file_data;
    if (mediaType === 'application/pdf' && base64 !== undefined)
      return { type: 'base64', media_type: 'application/pdf', data: base64 };
    if (mediaType === 'text/plain')
      return {
        type: 'text',
        media_type: 'text/plain',
        data: base64 === undefined ? decodeURIComponent(data!.data) : utf8FromBase64(base64),
      };
  }
  throw invalidRequest(
    'unsupported_content',
    'An Anthropic Messages upstream takes files as PDF or plain text (file_data data URLs), http(s) file_url, or file ids.',
    param,
  );
}

function utf8FromBase64(base64: string): string {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

// Scenario files: a scriptable test double. A JSON file lists scenarios; each matches requests (by model,
// text of the last user message, turn index, tool outputs) and scripts the answer (output items in order,
// usage, how it ends, HTTP-level errors with headers, pacing and chunk sizes) or replays recorded parts
// exactly. The format is documented in the server README ("Scenario files") and validated here with
// messages that name the path of the mistake.
import { isVendorType } from '@openresponses/events';
import type { Annotation } from '@openresponses/types';
import * as z from 'zod/v4';
import { ResponsesError, type ErrorType, ERROR_STATUS } from '../errors.js';
import type { FinishReason, ModelPart, ModelProvider, ModelRequest } from './provider.js';
import { contextTokens, countTokens, lastUserText } from './item-text.js';

/** The model name scenario files answer to by default. */
export const SCENARIO_MODEL = 'openresponses-scenario';

const errorTypes = Object.keys(ERROR_STATUS) as [ErrorType, ...ErrorType[]];
const vendorType = z
  .templateLiteral([z.string(), ':', z.string()])
  .refine(isVendorType, 'a vendor type is "slug:name"');

const textPart = z.strictObject({
  /** An `output_text` part's text. */
  text: z.string(),
  /** The text part's annotations (`url_citation`, …), sent as written. */
  annotations: z.array(z.looseObject({ type: z.string() })).optional(),
});
const refusalPart = z.strictObject({
  /** A `refusal` part's text. */
  refusal: z.string(),
});

const outputSchema = z.union([
  z.strictObject({
    /** `message`: an assistant message. */
    type: z.literal('message'),
    /** Shorthand for one output_text part. */
    text: z.string().optional(),
    /** A message's parts, in order: `{ text, annotations }` or `{ refusal }` (instead of `text`). */
    content: z
      .array(z.union([textPart, refusalPart]))
      .min(1)
      .optional(),
    /** The message's `phase`: `commentary` or `final_answer`. */
    phase: z.enum(['commentary', 'final_answer']).optional(),
  }),
  z.strictObject({
    /** `reasoning`: a reasoning item. */
    type: z.literal('reasoning'),
    /** A reasoning item's summary texts, one part each. */
    summary: z.array(z.string()).default([]),
    /** A reasoning item's reasoning text. */
    content: z.string().optional(),
  }),
  z.strictObject({
    /** `function_call`: a function call. */
    type: z.literal('function_call'),
    /** The function a `function_call` calls. */
    name: z.string().min(1),
    /** A call's arguments: an object (sent as its JSON) or the JSON string itself (default `{}`). */
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).default({}),
    /** A call's `call_id` (default: a generated one). */
    call_id: z.string().min(1).optional(),
  }),
  z.strictObject({
    /** `event`: a vendor event streamed between items. */
    type: z.literal('event'),
    /** A vendor event streamed at this point, as written. */
    event: z.looseObject({
      /** The vendor event's type, `slug:name` (declared in the server's `registry`). */
      type: vendorType,
    }),
  }),
  z.looseObject({
    /** A whole vendor item's type, `slug:name` (declared in the server's `registry`); its other fields as written. */
    type: vendorType,
  }),
]);

const endSchema = z.union([
  z.literal('completed'),
  z.strictObject({
    /** End as `response.incomplete` with this reason. */
    incomplete: z.enum(['max_output_tokens', 'content_filter']),
  }),
  z.strictObject({
    /** End with an `error` event and `response.failed`. */
    failed: z.strictObject({
      /** The failure's `code` (default `model_failed`). */
      code: z.string().default('model_failed'),
      /** The failure's `message`. */
      message: z.string().default('The scripted model failed.'),
      /** Fail after this many deltas (text, refusal, reasoning, arguments) of the outputs above; default: after all of them. */
      afterDeltas: z.number().int().nonnegative().optional(),
    }),
  }),
]);

const modelPartSchema = z.looseObject({ type: z.string() }) as unknown as z.ZodType<ModelPart>;

const scenarioSchema = z
  .strictObject({
    /** The scenario's name, shown in errors (a request no scenario matches lists them). */
    name: z.string().min(1),
    /** Which requests the scenario answers; every condition given must hold (default: all requests). */
    match: z
      .strictObject({
        /** A model name the scenario answers besides the file's `model`. */
        model: z.string().optional(),
        /** A substring of the last user message. */
        text: z.string().optional(),
        /** The turn: 1 for the first user message of a conversation, 2 for the second, … */
        turn: z.number().int().positive().optional(),
        /** true: only when the input ends with function_call_output items; false: only when it does not. */
        toolOutputs: z.boolean().optional(),
      })
      .default({}),
    /** How many requests this scenario answers before later scenarios take over (default: all). */
    times: z.number().int().positive().optional(),
    /** An HTTP-level error instead of a response (a 429 with Retry-After, a 500, …). */
    error: z
      .strictObject({
        /** The HTTP status, 400 to 599. */
        status: z.number().int().min(400).max(599),
        /** The error's `type` (default: the one the status stands for). */
        type: z.enum(errorTypes).optional(),
        /** The error's `code` (default `scripted_error`). */
        code: z.string().default('scripted_error'),
        /** The error's `message`. */
        message: z.string().default('Scripted error.'),
        /** The error's `param`: the request field it names (default null). */
        param: z.string().nullable().default(null),
        /** Response headers sent with the error (`retry-after`, …). */
        headers: z.record(z.string(), z.string()).default({}),
      })
      .optional(),
    /** The output items the model streams, in order. */
    output: z.array(outputSchema).optional(),
    /** Recorded model parts, replayed exactly (what record mode writes). */
    parts: z.array(modelPartSchema).optional(),
    /** The usage the response reports (default: counted words). */
    usage: z
      .strictObject({
        /** Tokens of input. */
        input_tokens: z.number().int().nonnegative(),
        /** Tokens of output. */
        output_tokens: z.number().int().nonnegative(),
        /** Of the output tokens, those spent reasoning. */
        reasoning_tokens: z.number().int().nonnegative().optional(),
        /** Of the input tokens, those read from a cache. */
        cached_tokens: z.number().int().nonnegative().optional(),
      })
      .optional(),
    /** How the response ends: `completed` (default), `{ incomplete: reason }` or `{ failed: { … } }`. */
    end: endSchema.default('completed'),
    /** How fast the answer streams. */
    pacing: z
      .strictObject({
        /** Milliseconds before each part. */
        delayMs: z.number().nonnegative().default(0),
        /** Characters per delta; default: word by word. */
        chunkSize: z.number().int().positive().optional(),
      })
      .default({ delayMs: 0 }),
  })
  .refine((s) => [s.error, s.output, s.parts].filter(Boolean).length === 1, {
    message: 'a scenario has exactly one of error, output or parts',
  });

const fileSchema = z.strictObject({
  /** The model name the scenarios serve when a scenario names none (default `openresponses-scenario`). */
  model: z.string().min(1).default(SCENARIO_MODEL),
  /** The scenarios, tried in order: the first that matches a request answers it. */
  scenarios: z.array(scenarioSchema).min(1),
});

/** A scenario file as written (JSON; `--record` writes the same scenarios as JSON Lines). */
export type ScenarioFile = z.input<typeof fileSchema>;
/** One scenario as parsed: what it matches and what the model answers. */
export type Scenario = z.output<typeof scenarioSchema>;
type Output = z.output<typeof outputSchema>;

/** Thrown for a scenario file that does not follow the format; the message names each mistake's path. */
export class ScenarioFileError extends Error {
  /** `'ScenarioFileError'`. */
  override readonly name = 'ScenarioFileError';
}

/** Validates a parsed scenario file. */
export function parseScenarioFile(value: unknown): z.output<typeof fileSchema> {
  const result = fileSchema.safeParse(value);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new ScenarioFileError(`Invalid scenario file:\n${lines.join('\n')}`, { cause: result.error });
}

/**
 * A scenario file's text: one JSON document (`{ model?, scenarios }`), or JSON Lines, one scenario per
 * line (what `--record` appends). In JSON Lines a last line without its line break that is not JSON was
 * cut by a crash mid-write and is left out; any other line that is not JSON is an error naming it.
 */
export function scenarioFileFromText(text: string): unknown {
  const firstLine = text.trimStart().split('\n', 1)[0]!.trim();
  if (!isScenarioLine(firstLine)) return JSON.parse(text);
  const lines = text.split('\n');
  const scenarios: unknown[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      scenarios.push(JSON.parse(line));
    } catch (error) {
      // Only the last line can be a cut write (every line is written whole, then its line break).
      if (index === lines.length - 1) return;
      throw new ScenarioFileError(`line ${index + 1} is not JSON: ${(error as Error).message}`, { cause: error });
    }
  });
  return { scenarios };
}

/** Whether `line` is one whole scenario (an object with a name) rather than the start of a JSON document. */
function isScenarioLine(line: string): boolean {
  if (!line.startsWith('{') || !line.endsWith('}')) return false;
  try {
    const value = JSON.parse(line) as unknown;
    return !!value && typeof value === 'object' && typeof (value as { name?: unknown }).name === 'string';
  } catch {
    return false;
  }
}

/** Serves the scenarios of a file, first match first; a request no scenario matches is a clear 400. */
export class ScenarioProvider implements ModelProvider {
  readonly name = 'scenarios';
  readonly genAiProvider = 'openresponses';
  readonly contextWindow = 1_000_000;
  private readonly file: z.output<typeof fileSchema>;
  private readonly used = new Map<Scenario, number>();

  constructor(file: unknown) {
    this.file = parseScenarioFile(file);
  }

  supports(model: string): boolean {
    return model === this.file.model || this.file.scenarios.some((s) => s.match.model === model);
  }

  listModels(): string[] {
    return [...new Set([this.file.model, ...this.file.scenarios.flatMap((s) => s.match.model ?? [])])];
  }

  async *generate(request: ModelRequest): AsyncGenerator<ModelPart> {
    const scenario = this.select(request);
    const { delayMs } = scenario.pacing;
    const parts = scenario.parts ?? scriptedParts(scenario, request);
    for (const part of parts) {
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (request.signal?.aborted) return;
      yield part;
    }
  }

  private select(request: ModelRequest): Scenario {
    const facts = matchFactsOf(request);
    const scenario = this.file.scenarios.find((s) => this.matches(s, facts));
    if (!scenario)
      throw new ResponsesError(
        'invalid_request',
        'no_matching_scenario',
        `No scenario matches this request (model ${facts.model}, turn ${facts.turn}, tool outputs: ${facts.toolOutputs}); scenarios: ${this.file.scenarios.map((s) => s.name).join(', ')}.`,
        null,
      );
    this.used.set(scenario, (this.used.get(scenario) ?? 0) + 1);
    if (scenario.error) {
      const { status, type, code, message, param, headers } = scenario.error;
      throw new ResponsesError(type ?? errorTypeOf(status), code, message, param, status, { headers });
    }
    return scenario;
  }

  private matches(scenario: Scenario, facts: ReturnType<typeof matchFactsOf>): boolean {
    const { match } = scenario;
    if (scenario.times !== undefined && (this.used.get(scenario) ?? 0) >= scenario.times) return false;
    if ((match.model ?? this.file.model) !== facts.model) return false;
    if (match.text !== undefined && !facts.text.includes(match.text)) return false;
    if (match.turn !== undefined && facts.turn !== match.turn) return false;
    if (match.toolOutputs !== undefined && facts.toolOutputs !== match.toolOutputs) return false;
    return true;
  }
}

/** What scenarios match on, as one request shows it (record mode writes the same facts). */
export function matchFactsOf(request: ModelRequest) {
  return {
    model: request.model,
    text: lastUserText(request.items),
    /** 1 for the first user message of a conversation, 2 for the second, … */
    turn: request.items.filter((item) => item.type === 'message' && (item as { role?: string }).role === 'user').length,
    toolOutputs: request.items.at(-1)?.type === 'function_call_output',
  };
}

function errorTypeOf(status: number): ErrorType {
  const byStatus = errorTypes.find((type) => ERROR_STATUS[type] === status);
  return byStatus ?? (status >= 500 ? 'server_error' : 'invalid_request');
}

/** The parts of a scripted answer: each output in order, deltas by chunk size or word, then the end. */
function scriptedParts(scenario: Scenario, request: ModelRequest): ModelPart[] {
  const parts: ModelPart[] = [];
  const chunk = (text: string) => chunks(text, scenario.pacing.chunkSize);
  const failAfter = typeof scenario.end === 'object' && 'failed' in scenario.end ? scenario.end.failed : undefined;
  let deltas = 0;
  let outputTokens = 0;
  let reasoningTokens = 0;
  /** Pushes a delta part; false once the scripted failure point is reached. */
  const delta = (part: ModelPart & { delta: string }, reasoning = false) => {
    if (failAfter?.afterDeltas !== undefined && deltas >= failAfter.afterDeltas) return false;
    deltas++;
    const tokens = countTokens(part.delta);
    outputTokens += tokens;
    if (reasoning) reasoningTokens += tokens;
    parts.push(part);
    return true;
  };
  const fail = () => parts.push({ type: 'error', code: failAfter!.code, message: failAfter!.message });

  for (const [index, output] of (scenario.output ?? []).entries()) {
    const id = String(index);
    if (!emitOutput(output, id, parts, chunk, delta, scenario.pacing.chunkSize)) {
      fail();
      return parts;
    }
  }
  if (failAfter) {
    fail();
    return parts;
  }
  const inputTokens = contextTokens(request);
  const usage = scenario.usage
    ? {
        inputTokens: scenario.usage.input_tokens,
        outputTokens: scenario.usage.output_tokens,
        reasoningTokens: scenario.usage.reasoning_tokens,
        cachedInputTokens: scenario.usage.cached_tokens,
      }
    : { inputTokens, outputTokens, reasoningTokens };
  const reason: FinishReason =
    scenario.end === 'completed'
      ? (scenario.output ?? []).some((o) => o.type === 'function_call')
        ? 'tool_calls'
        : 'stop'
      : 'incomplete' in scenario.end
        ? scenario.end.incomplete === 'content_filter'
          ? 'content_filter'
          : 'length'
        : 'error';
  parts.push({ type: 'finish', reason, usage });
  return parts;
}

type DeltaSink = (part: ModelPart & { delta: string }, reasoning?: boolean) => boolean;

/** Pushes one output's parts; false when the scripted failure point was reached inside it. */
function emitOutput(
  output: Output,
  id: string,
  parts: ModelPart[],
  chunk: (text: string) => string[],
  delta: DeltaSink,
  chunkSize: number | undefined,
): boolean {
  switch (output.type) {
    case 'message': {
      const content = output.content ?? [{ text: output.text ?? '' }];
      for (const [index, part] of content.entries()) {
        const kind = 'refusal' in part ? 'refusal' : 'text';
        if (index === 0)
          parts.push(kind === 'text' ? { type: 'text-start', id, phase: output.phase } : { type: 'refusal-start', id });
        else parts.push({ type: 'message-part-start', id, kind });
        const text = 'refusal' in part ? part.refusal : part.text;
        for (const piece of chunk(text)) if (!delta({ type: `${kind}-delta`, id, delta: piece })) return false;
        if ('text' in part)
          for (const annotation of part.annotations ?? [])
            parts.push({ type: 'text-annotation', id, annotation: annotation as unknown as Annotation });
      }
      parts.push({ type: 'refusal' in content.at(-1)! ? 'refusal-end' : 'text-end', id });
      return true;
    }
    case 'reasoning': {
      parts.push({ type: 'reasoning-start', id });
      for (const summary of output.summary) {
        parts.push({ type: 'reasoning-summary-start', id });
        for (const piece of chunk(summary))
          if (!delta({ type: 'reasoning-summary-delta', id, delta: piece }, true)) return false;
        parts.push({ type: 'reasoning-summary-end', id });
      }
      for (const piece of chunk(output.content ?? ''))
        if (!delta({ type: 'reasoning-delta', id, delta: piece }, true)) return false;
      parts.push({ type: 'reasoning-end', id });
      return true;
    }
    case 'function_call': {
      parts.push({ type: 'function-call-start', id, name: output.name, callId: output.call_id });
      const args = typeof output.arguments === 'string' ? output.arguments : JSON.stringify(output.arguments);
      for (const piece of chunks(args, chunkSize ?? 16))
        if (!delta({ type: 'function-call-delta', id, delta: piece })) return false;
      parts.push({ type: 'function-call-end', id });
      return true;
    }
    case 'event':
      parts.push({ type: 'vendor-event', event: output.event });
      return true;
    default:
      parts.push({ type: 'item', item: output });
      return true;
  }
}

/** A text as deltas: fixed-size chunks, or word by word (spaces kept with the following word). */
function chunks(text: string, size: number | undefined): string[] {
  if (!size) return text.match(/\s*\S+\s*$|\s*\S+/g) ?? (text ? [text] : []);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

// The scenario file format: what a file may say, validated with messages that name the path of each
// mistake, and how its text is read (one JSON document, or JSON Lines as `--record` appends them). The
// provider that serves a file is scenarios.ts; the format is documented in the server README ("Scenario files").
import { isVendorType } from '@openresponses/events';
import * as z from 'zod/v4';
import { type ErrorType, ERROR_STATUS } from '../errors.js';
import type { ModelPart } from './provider.js';

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
/** One output of a scenario as parsed (a message, a function call, reasoning…). */
export type ScenarioOutput = z.output<typeof outputSchema>;

/** Thrown for a scenario file that does not follow the format; the message names each mistake's path. */
export class ScenarioFileError extends Error {
  /** `'ScenarioFileError'`. */
  override readonly name = 'ScenarioFileError';
}

/** A scenario file as parsed: its model name (default `openresponses-scenario`) and its scenarios. */
export type ParsedScenarioFile = z.output<typeof fileSchema>;

/** Validates a parsed scenario file. */
export function parseScenarioFile(value: unknown): ParsedScenarioFile {
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

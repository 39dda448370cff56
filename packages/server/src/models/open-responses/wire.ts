/**
 * What a Responses upstream (`POST /v1/responses`: OpenAI, vLLM, Ollama, LM Studio, llama.cpp, OpenRouter…)
 * sends, checked before any of it becomes part of a response. Events and items are checked by the generated
 * standalone validators in forward mode (`@openresponses/types/validate/forward`: the fastest exact check
 * there is, and unknown item, content and event types pass intact as the spec's forward compatibility asks);
 * the response objects of lifecycle events are read only for what the gateway uses (output items, usage,
 * error, incomplete reason), because the servers in front of which the gateway puts the spec leave out many
 * of the response's required fields. Quirks that can be normalised without asking are normalised here, once,
 * before the check (see `normaliseEvent`).
 */
import type { ItemField } from '@openresponses/types';
import { validateError, validateItemField, validateStreamingEvent } from '@openresponses/types/validate/forward';
import { formatPath } from '@openresponses/zod';
import * as z from 'zod/v4';
import { ResponsesError } from '../../errors.js';

/** What `encrypted_content` carries for this family: the upstream's own encrypted reasoning, and which upstream made it. */
export const reasoningStateSchema = z.strictObject({
  kind: z.literal('open-responses'),
  /** The upstream's base URL: the state goes back only to the upstream that made it. */
  upstream: z.string(),
  encrypted_content: z.string().min(1),
});
export type OpenResponsesReasoningState = z.infer<typeof reasoningStateSchema>;

const count = z.number().int().nonnegative();
/** Usage as upstreams send it (details often left out). */
export const usageSchema = z.looseObject({
  input_tokens: count.nullish(),
  output_tokens: count.nullish(),
  input_tokens_details: z.looseObject({ cached_tokens: count.nullish() }).nullish(),
  output_tokens_details: z.looseObject({ reasoning_tokens: count.nullish() }).nullish(),
});
export type UpstreamUsage = z.infer<typeof usageSchema>;

/** The part of a response object (a lifecycle event's, or a whole JSON answer) the gateway reads. */
export interface UpstreamResponse {
  status: string | undefined;
  output: ItemField[];
  usage: UpstreamUsage | undefined;
  error: { code: string; message: string } | undefined;
  incompleteReason: string | undefined;
}

const responseSchema = z.looseObject({
  status: z.string().nullish(),
  output: z.array(z.unknown()).nullish(),
  usage: usageSchema.nullish(),
  error: z.unknown().nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
});

/** Reads what the gateway uses of an upstream response object, checking each output item (forward mode). */
export function readResponse(value: unknown, where: string): UpstreamResponse {
  const parsed = responseSchema.safeParse(value);
  if (!parsed.success) throw invalid(where, formatPath(parsed.error.issues[0]!.path), parsed.error.issues[0]!.message);
  const output = (parsed.data.output ?? []).map((item, index) => checkedItem(item, `${where}.output[${index}]`));
  let error: UpstreamResponse['error'];
  if (parsed.data.error) {
    const checked = validateError(parsed.data.error);
    error = checked.success
      ? { code: checked.data.code, message: checked.data.message }
      : { code: 'upstream_error', message: 'The upstream response failed.' };
  }
  return {
    status: parsed.data.status ?? undefined,
    output,
    usage: parsed.data.usage ?? undefined,
    error,
    incompleteReason: parsed.data.incomplete_details?.reason ?? undefined,
  };
}

/**
 * An output item, checked by the spec's item union in forward mode (a vendor item passes intact). A field
 * the spec makes optional but not nullable, sent as `null` (OpenAI's `encrypted_content: null`, vLLM's
 * `status: null`), is taken as left out.
 */
export function checkedItem(value: unknown, where: string): ItemField {
  for (let attempt = 0; ; attempt++) {
    const checked = validateItemField(value);
    if (checked.success) return checked.data as unknown as ItemField;
    const first = checked.issues[0]!;
    const field = first.path.length === 1 ? first.path[0] : undefined;
    const record = value as Record<string, unknown>;
    if (attempt < 8 && typeof field === 'string' && record[field] === null) {
      const { [field]: _null, ...rest } = record;
      value = rest;
      continue;
    }
    throw invalid(where, formatPath(first.path), first.message);
  }
}

/** Event names some servers use for what the spec calls `response.reasoning.*` (OpenAI, vLLM). */
const ALIASES: Readonly<Record<string, string>> = {
  'response.reasoning_text.delta': 'response.reasoning.delta',
  'response.reasoning_text.done': 'response.reasoning.done',
};

/** Lifecycle events: their `response` is read by `readResponse`, not checked whole. */
export const LIFECYCLE_EVENTS: ReadonlySet<string> = new Set([
  'response.created',
  'response.queued',
  'response.in_progress',
  'response.completed',
  'response.failed',
  'response.incomplete',
]);

/** The ids an event may leave out, found from what came before: `item_id` from `output_index`, and back. */
export interface ItemIndex {
  idAt(outputIndex: number): string | undefined;
  indexOf(itemId: string): number | undefined;
}

/**
 * An upstream event, normalised and checked: the quirks real servers have are filled in (a missing
 * `sequence_number`, `item_id`, `output_index`, `content_index`, `summary_index`; reasoning event aliases), then
 * the event is checked by the spec's event union in forward mode. Anything else wrong is
 * `upstream_invalid_chunk`. Returns the event with `type` as the spec names it.
 */
export function normaliseEvent(
  raw: unknown,
  sequence: number,
  items: ItemIndex,
): { type: string; [key: string]: unknown } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || typeof (raw as { type?: unknown }).type !== 'string')
    throw invalid('event', '', 'an event is an object with a string "type"');
  const event = raw as { type: string; [key: string]: unknown };
  event.type = ALIASES[event.type] ?? event.type;
  if (typeof event.sequence_number !== 'number') event.sequence_number = sequence;
  if (LIFECYCLE_EVENTS.has(event.type)) return event;
  if (event.type === 'error') {
    // A bare error, as some servers send it: the code and message on the event itself.
    if (!event.error || typeof event.error !== 'object')
      event.error = { type: 'model_error', code: event.code ?? 'upstream_error', message: event.message ?? '' };
    const error = event.error as Record<string, unknown>;
    error.type ??= 'model_error';
    if (typeof error.code !== 'string') error.code = 'upstream_error';
    if (typeof error.message !== 'string') error.message = 'The upstream model failed.';
    error.param ??= null;
  }
  if (event.type.startsWith('response.') && event.type !== 'response.output_item.added') {
    if (typeof event.output_index !== 'number' && typeof event.item_id === 'string') {
      const at = items.indexOf(event.item_id);
      if (at !== undefined) event.output_index = at;
    }
    if (typeof event.item_id !== 'string' && typeof event.output_index === 'number') {
      const id = items.idAt(event.output_index);
      if (id !== undefined) event.item_id = id;
    }
    if (
      /^response\.(output_text|refusal|content_part|reasoning)\./.test(event.type) &&
      event.content_index === undefined
    )
      event.content_index = 0;
    if (event.type.startsWith('response.reasoning_summary') && event.summary_index === undefined)
      event.summary_index = 0;
  }
  if (event.item && typeof event.item === 'object') event.item = checkedItem(event.item, `'${event.type}' item`);
  const checked = validateStreamingEvent(event);
  if (!checked.success) {
    const first = checked.issues[0]!;
    throw invalid(`'${event.type}' event`, formatPath(first.path), first.message);
  }
  return event;
}

function invalid(where: string, path: string, message: string): ResponsesError {
  return new ResponsesError(
    'model_error',
    'upstream_invalid_chunk',
    `The upstream sent a ${where} that is not valid${path ? ` at ${path}` : ''}: ${message}.`,
  );
}

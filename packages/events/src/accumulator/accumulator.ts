import { cloneJson } from '../clone.js';
import type { ErrorPayload, ResponseResource, StreamingEvent, StreamingEventByType } from '@openresponses/types';
import { type EventTable, tableMap } from '../dispatch.js';
import { type AnyStreamingEvent, PEER_EVENT_ALIASES, type TerminalEventType } from '../events.js';

/** Folds a vendor event into the snapshot (registered by `@openresponses/extensions`). */
export type VendorEventFold = (response: ResponseResource, event: AnyStreamingEvent) => void;

/** What `createAccumulator` takes. */
export interface AccumulatorOptions {
  /** Folds for vendor event types; unregistered vendor and unknown events leave the snapshot alone. */
  folds?: Readonly<Record<string, VendorEventFold>>;
}

/** Rebuilds the response from its events, from `createAccumulator()`. */
export interface Accumulator {
  /** Applies one event and returns the snapshot after it (the live object: read it, do not mutate it; it shares the events' unchanging fields such as `tools` and `usage`, and owns its `output`). */
  push(event: AnyStreamingEvent): ResponseResource | undefined;
  /** The snapshot so far; undefined until the first lifecycle event carrying a response. */
  readonly response: ResponseResource | undefined;
  /** `error` events seen, in order. */
  readonly errors: readonly ErrorPayload[];
}

/** The writer's and the accumulator's own view of a public object whose read-only fields they keep current. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** What the handlers update: the snapshot, replaced by lifecycle events and edited in place by the others. */
interface Snapshot {
  response: ResponseResource | undefined;
  readonly errors: ErrorPayload[];
}

/** A JSON object of the snapshot, edited in place whatever item or part type holds it (vendor items too). */
export type Mutable = Record<string, unknown>;
function mutable(value: unknown): Mutable | undefined {
  return typeof value === 'object' && value !== null ? (value as Mutable) : undefined;
}
const itemAt = (snapshot: Snapshot, index: number): Mutable | undefined => mutable(snapshot.response?.output[index]);
/** The array at `owner[key]`, started when missing (the writer's unwatched mode starts parts with it too). */
export const listOf = (owner: Mutable | undefined, key: string): unknown[] | undefined => {
  if (!owner) return undefined;
  const existing = owner[key];
  if (Array.isArray(existing)) return existing;
  const started: unknown[] = [];
  owner[key] = started;
  return started;
};
const partAt = (snapshot: Snapshot, outputIndex: number, key: 'content' | 'summary', index: number) =>
  mutable(listOf(itemAt(snapshot, outputIndex), key)?.[index]);
/** Appends a delta to the text at `target[key]` (a part's `text` or `refusal`, an item's `arguments`). */
const append = (target: Mutable | undefined, key: string, delta: string) => {
  if (target) target[key] = `${target[key] ?? ''}${delta}`;
};
/** Sets the final text at `target[key]`, from a .done event. */
const finish = (target: Mutable | undefined, key: string, text: string) => {
  if (target) target[key] = text;
};

/**
 * The snapshot for a lifecycle event's response; undefined when a broken peer sent none (the checker
 * reports that as `schema`). Only `output` is mutated by later events, so only it is deep-copied; the
 * other fields (tools, usage, metadata…) are shared with the event.
 */
function snapshotOf(response: ResponseResource | undefined): ResponseResource | undefined {
  if (typeof response !== 'object' || response === null) return undefined;
  return { ...response, output: Array.isArray(response.output) ? cloneJson(response.output) : [] };
}

function startOrProgress(
  event: StreamingEventByType<'response.created' | 'response.queued' | 'response.in_progress'>,
  snapshot: Snapshot,
) {
  const next = snapshotOf(event.response);
  if (!next) return;
  // Lifecycle events before the end may carry an empty output; keep what the stream has built.
  if (snapshot.response && next.output.length === 0) next.output = snapshot.response.output;
  snapshot.response = next;
}

function end(event: StreamingEventByType<TerminalEventType>, snapshot: Snapshot) {
  const streamed = snapshot.response?.output;
  // A terminal event carrying the snapshot's own output (the writer's: it ends with what it built) gives
  // nothing to copy: the accumulator owns it already, and no event follows a terminal one to change it.
  const next =
    streamed !== undefined && event.response?.output === streamed
      ? { ...event.response, output: streamed }
      : snapshotOf(event.response);
  if (!next) return;
  // Some peers send an empty output in the terminal event; the streamed items are the better record.
  if (streamed && next.output.length === 0 && streamed.length > 0) next.output = streamed;
  snapshot.response = next;
}

function setItem(
  event: StreamingEventByType<'response.output_item.added' | 'response.output_item.done'>,
  snapshot: Snapshot,
) {
  const output = snapshot.response?.output;
  // The snapshot's own item (the writer's output_item.done, final from then on) is in place already.
  if (output && event.item && output[event.output_index] !== event.item)
    output[event.output_index] = cloneJson(event.item);
}

function setContentPart(
  event: StreamingEventByType<'response.content_part.added' | 'response.content_part.done'>,
  snapshot: Snapshot,
) {
  const parts = listOf(itemAt(snapshot, event.output_index), 'content');
  // The snapshot's own part (the writer's content_part.done, final from then on) is in place already.
  if (parts && parts[event.content_index] !== event.part) parts[event.content_index] = cloneJson(event.part);
}

function setSummaryPart(
  event: StreamingEventByType<'response.reasoning_summary_part.added' | 'response.reasoning_summary_part.done'>,
  snapshot: Snapshot,
) {
  const summary = listOf(itemAt(snapshot, event.output_index), 'summary');
  if (summary) summary[event.summary_index] = cloneJson(event.part);
}

function applyReasoning(
  event: StreamingEventByType<'response.reasoning.delta' | 'response.reasoning.done'>,
  snapshot: Snapshot,
) {
  const parts = listOf(itemAt(snapshot, event.output_index), 'content');
  if (!parts) return;
  // Raw reasoning may stream without a content_part.added; start the part on first sight.
  let target = mutable(parts[event.content_index]);
  if (!target) {
    target = { type: 'reasoning_text', text: '' };
    parts[event.content_index] = target;
  }
  if (event.type === 'response.reasoning.delta') append(target, 'text', event.delta);
  else finish(target, 'text', event.text);
}

/** How each event type changes the snapshot, one handler per event type (or family): a spec event type without one does not compile. */
const APPLY: EventTable<Snapshot> = {
  'response.created': startOrProgress,
  'response.queued': startOrProgress,
  'response.in_progress': startOrProgress,
  'response.completed': end,
  'response.incomplete': end,
  'response.failed': end,
  'response.output_item.added': setItem,
  'response.output_item.done': setItem,
  'response.content_part.added': setContentPart,
  'response.content_part.done': setContentPart,
  'response.output_text.delta': (event, snapshot) => {
    // The most frequent event of a stream: the part is reached by named loads (`content`, `text`), which
    // stay monomorphic, instead of partAt's and append's loads keyed by a variable name.
    const item = snapshot.response?.output[event.output_index] as { content?: unknown } | undefined;
    const parts = typeof item === 'object' && item !== null ? item.content : undefined;
    const part = Array.isArray(parts) ? (parts[event.content_index] as { text?: unknown } | undefined) : undefined;
    const target =
      typeof part === 'object' && part !== null
        ? (part as Mutable)
        : partAt(snapshot, event.output_index, 'content', event.content_index);
    if (!target) return;
    // Strings joined by `+`: the template's ToString calls were a sixth of this handler.
    const text = target.text;
    const delta = event.delta;
    target.text = typeof text === 'string' && typeof delta === 'string' ? text + delta : `${text ?? ''}${delta}`;
    if (event.logprobs?.length)
      target.logprobs = [...(Array.isArray(target.logprobs) ? target.logprobs : []), ...event.logprobs];
  },
  'response.output_text.done': (event, snapshot) =>
    finish(partAt(snapshot, event.output_index, 'content', event.content_index), 'text', event.text),
  'response.refusal.delta': (event, snapshot) =>
    append(partAt(snapshot, event.output_index, 'content', event.content_index), 'refusal', event.delta),
  'response.refusal.done': (event, snapshot) =>
    finish(partAt(snapshot, event.output_index, 'content', event.content_index), 'refusal', event.refusal),
  'response.output_text.annotation.added': (event, snapshot) => {
    const annotations = listOf(partAt(snapshot, event.output_index, 'content', event.content_index), 'annotations');
    if (annotations && event.annotation) annotations[event.annotation_index] = cloneJson(event.annotation);
  },
  'response.function_call_arguments.delta': (event, snapshot) =>
    append(itemAt(snapshot, event.output_index), 'arguments', event.delta),
  'response.function_call_arguments.done': (event, snapshot) =>
    finish(itemAt(snapshot, event.output_index), 'arguments', event.arguments),
  'response.reasoning_summary_part.added': setSummaryPart,
  'response.reasoning_summary_part.done': setSummaryPart,
  'response.reasoning_summary_text.delta': (event, snapshot) =>
    append(partAt(snapshot, event.output_index, 'summary', event.summary_index), 'text', event.delta),
  'response.reasoning_summary_text.done': (event, snapshot) =>
    finish(partAt(snapshot, event.output_index, 'summary', event.summary_index), 'text', event.text),
  'response.reasoning.delta': applyReasoning,
  'response.reasoning.done': applyReasoning,
  error: (event, snapshot) => {
    snapshot.errors.push(event.error);
  },
};

/** APPLY by type, with the peers' names for spec types (their events handled as the spec type's). */
const APPLY_BY_TYPE = tableMap(APPLY);
for (const [alias, type] of Object.entries(PEER_EVENT_ALIASES)) {
  const apply = APPLY_BY_TYPE.get(type)!;
  APPLY_BY_TYPE.set(alias, (event, snapshot) => apply({ ...event, type } as StreamingEvent, snapshot));
}

/**
 * Rebuilds the `ResponseResource` from a stream, like the `openai` SDK's `finalResponse()`: output
 * items by `output_index`, content parts by `content_index`, text, refusal, function-argument, reasoning
 * and reasoning-summary deltas, annotations, status transitions and usage. After a complete stream the
 * snapshot equals the response in the terminal event.
 */
export function createAccumulator(options: AccumulatorOptions = {}): Accumulator {
  const snapshot: Snapshot = { response: undefined, errors: [] };
  let lastType: string | undefined;
  let lastApply: ReturnType<typeof APPLY_BY_TYPE.get>;
  // Data properties kept current by push(), not getters: on Node 20 an object literal with accessors
  // costs a fresh hidden class per instance, which the garbage collector then chases.
  const accumulator: Writable<Accumulator> = {
    push(event) {
      // Streams send runs of one type (interned by decodeSSE): the last handler is reused on a pointer match.
      const type = event.type;
      if (type !== lastType) {
        lastApply = APPLY_BY_TYPE.get(type);
        lastType = type;
      }
      const apply = lastApply;
      // A spec type (its fields are the peer's: the handlers skip what is missing rather than throw).
      if (apply) apply(event as StreamingEvent, snapshot);
      else if (snapshot.response) options.folds?.[event.type]?.(snapshot.response, event);
      accumulator.response = snapshot.response;
      return snapshot.response;
    },
    response: undefined,
    errors: snapshot.errors,
  };
  return accumulator;
}

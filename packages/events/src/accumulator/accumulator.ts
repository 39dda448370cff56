import { cloneJson } from '../clone.js';
import type { ErrorPayload, ItemField, ResponseResource, StreamingEvent } from '@openresponses/types';
import { type AnyStreamingEvent, isStreamingEventType, PEER_EVENT_ALIASES } from '../events.js';

/** Folds a vendor event into the snapshot (registered by `@openresponses/extensions`). */
export type VendorEventFold = (response: ResponseResource, event: AnyStreamingEvent) => void;

export interface AccumulatorOptions {
  /** Folds for vendor event types; unregistered vendor and unknown events leave the snapshot alone. */
  folds?: Readonly<Record<string, VendorEventFold>>;
}

export interface Accumulator {
  /** Applies one event and returns the snapshot after it (the live object: read it, do not mutate it; it shares the events' unchanging fields such as `tools` and `usage`, and owns its `output`). */
  push(event: AnyStreamingEvent): ResponseResource | undefined;
  /** The snapshot so far; undefined until the first lifecycle event carrying a response. */
  readonly response: ResponseResource | undefined;
  /** `error` events seen, in order. */
  readonly errors: readonly ErrorPayload[];
}

type Mutable = Record<string, unknown>;

/**
 * The snapshot for a lifecycle event's response; undefined when a broken peer sent none (the checker
 * reports that as `schema`). Only `output` is mutated by later events, so only it is deep-copied; the
 * other fields (tools, usage, metadata…) are shared with the event.
 */
function snapshotOf(value: unknown): ResponseResource | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const output = (value as { output?: unknown }).output;
  return { ...(value as ResponseResource), output: Array.isArray(output) ? (cloneJson(output) as ItemField[]) : [] };
}

/**
 * Rebuilds the `ResponseResource` from a stream, like the `openai` SDK's `finalResponse()`: output
 * items by `output_index`, content parts by `content_index`, text, refusal, function-argument, reasoning
 * and reasoning-summary deltas, annotations, status transitions and usage. After a complete stream the
 * snapshot equals the response in the terminal event.
 */
export function createAccumulator(options: AccumulatorOptions = {}): Accumulator {
  let response: ResponseResource | undefined;
  const errors: ErrorPayload[] = [];

  const item = (index: number): Mutable | undefined => (response?.output[index] as Mutable | undefined) ?? undefined;
  const list = (owner: Mutable | undefined, key: string): Mutable[] | undefined => {
    if (!owner) return undefined;
    if (!Array.isArray(owner[key])) owner[key] = [];
    return owner[key] as Mutable[];
  };
  const part = (outputIndex: number, key: 'content' | 'summary', index: number): Mutable | undefined =>
    list(item(outputIndex), key)?.[index];

  const apply = (event: StreamingEvent) => {
    switch (event.type) {
      case 'response.created':
      case 'response.queued':
      case 'response.in_progress': {
        const next = snapshotOf(event.response);
        if (!next) return;
        // Lifecycle events before the end may carry an empty output; keep what the stream has built.
        if (response && next.output.length === 0) next.output = response.output;
        response = next;
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        const next = snapshotOf(event.response);
        if (!next) return;
        // Some peers send an empty output in the terminal event; the streamed items are the better record.
        if (response && next.output.length === 0 && response.output.length > 0) next.output = response.output;
        response = next;
        return;
      }
      case 'response.output_item.added':
      case 'response.output_item.done':
        if (response && event.item) response.output[event.output_index] = cloneJson(event.item) as ItemField;
        return;
      case 'response.content_part.added':
      case 'response.content_part.done': {
        const parts = list(item(event.output_index), 'content');
        if (parts) parts[event.content_index] = cloneJson(event.part) as Mutable;
        return;
      }
      case 'response.output_text.delta': {
        const target = part(event.output_index, 'content', event.content_index);
        if (!target) return;
        target.text = `${(target.text as string | undefined) ?? ''}${event.delta}`;
        if (event.logprobs?.length)
          target.logprobs = [...((target.logprobs as unknown[] | undefined) ?? []), ...event.logprobs];
        return;
      }
      case 'response.output_text.done': {
        const target = part(event.output_index, 'content', event.content_index);
        if (target) target.text = event.text;
        return;
      }
      case 'response.refusal.delta': {
        const target = part(event.output_index, 'content', event.content_index);
        if (target) target.refusal = `${(target.refusal as string | undefined) ?? ''}${event.delta}`;
        return;
      }
      case 'response.refusal.done': {
        const target = part(event.output_index, 'content', event.content_index);
        if (target) target.refusal = event.refusal;
        return;
      }
      case 'response.output_text.annotation.added': {
        const target = part(event.output_index, 'content', event.content_index);
        if (target && event.annotation)
          list(target, 'annotations')![event.annotation_index] = cloneJson(event.annotation) as Mutable;
        return;
      }
      case 'response.function_call_arguments.delta': {
        const target = item(event.output_index);
        if (target) target.arguments = `${(target.arguments as string | undefined) ?? ''}${event.delta}`;
        return;
      }
      case 'response.function_call_arguments.done': {
        const target = item(event.output_index);
        if (target) target.arguments = event.arguments;
        return;
      }
      case 'response.reasoning_summary_part.added':
      case 'response.reasoning_summary_part.done': {
        const summary = list(item(event.output_index), 'summary');
        if (summary) summary[event.summary_index] = cloneJson(event.part) as Mutable;
        return;
      }
      case 'response.reasoning_summary_text.delta': {
        const target = part(event.output_index, 'summary', event.summary_index);
        if (target) target.text = `${(target.text as string | undefined) ?? ''}${event.delta}`;
        return;
      }
      case 'response.reasoning_summary_text.done': {
        const target = part(event.output_index, 'summary', event.summary_index);
        if (target) target.text = event.text;
        return;
      }
      case 'response.reasoning.delta':
      case 'response.reasoning.done': {
        const parts = list(item(event.output_index), 'content');
        if (!parts) return;
        // Raw reasoning may stream without a content_part.added; start the part on first sight.
        const target = (parts[event.content_index] ??= { type: 'reasoning_text', text: '' });
        target.text =
          event.type === 'response.reasoning.delta'
            ? `${(target.text as string | undefined) ?? ''}${event.delta}`
            : event.text;
        return;
      }
      case 'error':
        errors.push(event.error);
        return;
    }
  };

  // Data properties kept current by push(), not getters: on Node 20 an object literal with accessors
  // costs a fresh hidden class per instance, which the garbage collector then chases.
  const accumulator: Accumulator = {
    push(event) {
      // Own-property check: a miss on a plain object would walk the prototype chain on every event.
      const type = Object.hasOwn(PEER_EVENT_ALIASES, event.type) ? PEER_EVENT_ALIASES[event.type]! : event.type;
      if (isStreamingEventType(type)) apply((type === event.type ? event : { ...event, type }) as StreamingEvent);
      else if (response) options.folds?.[event.type]?.(response, event);
      (accumulator as { response: ResponseResource | undefined }).response = response;
      return response;
    },
    response: undefined,
    errors,
  };
  return accumulator;
}

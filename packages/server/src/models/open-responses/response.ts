import type { ItemField, LogProb } from '@openresponses/types';
import { ResponsesError } from '../../errors.js';
import type { FinishReason, ModelPart, ModelUsage, ReasoningState } from '../provider.js';
import {
  type ItemIndex,
  LIFECYCLE_EVENTS,
  normaliseEvent,
  type OpenResponsesReasoningState,
  readResponse,
  type UpstreamResponse,
  type UpstreamUsage,
} from './wire.js';

type Event = { type: string; [key: string]: unknown };
type Record_ = Record<string, unknown>;

/** One upstream output item while it streams: what was started of it, so its end can fill what was not streamed. */
interface OpenItem {
  id: string;
  type: string;
  /** Part ids (`<index>`) are the provider ids the turn runner keys items by. */
  key: string;
  /** message: the kind of the open content part, and whether any part opened. */
  part?: 'text' | 'refusal';
  /** message: its text part was opened when it was added, and no content part was announced since. */
  fresh?: boolean;
  /** Text or arguments streamed so far (a `done` item whose content was never streamed is sent whole). */
  streamed: boolean;
  summaries: number;
  openSummary: boolean;
}

/**
 * Turns a Responses upstream's events into parts. Output items are keyed by `output_index`; each event is
 * normalised and checked (wire.ts) first. The gateway's own writer numbers the events, gives items spec
 * ids, and builds the final output from what was streamed, so an upstream's missing sequence numbers, its
 * ids and an empty final `output` never reach the client. What an upstream sends only whole (an item with no
 * deltas, a final output with no items streamed) is streamed from the whole. A bare `error` ends the turn as
 * failed; the first terminal event ends it, whatever follows.
 */
export class EventTranslator implements ItemIndex {
  complete = false;
  private readonly items = new Map<number, OpenItem>();
  private readonly ids = new Map<string, number>();
  private sequence = 0;
  private streamedAny = false;
  private calls = 0;
  private wholes = 0;
  /** Output indexes of unknown items already passed whole at their addition (their `done` adds nothing). */
  private readonly passed = new Set<number>();

  constructor(private readonly upstream: string) {}

  idAt(outputIndex: number): string | undefined {
    return this.items.get(outputIndex)?.id;
  }

  indexOf(itemId: string): number | undefined {
    return this.ids.get(itemId);
  }

  /** Parts for one upstream event (its JSON value). */
  push(raw: unknown, out: ModelPart[]): void {
    if (this.complete) return;
    const event = normaliseEvent(raw, this.sequence++, this);
    if (LIFECYCLE_EVENTS.has(event.type)) {
      this.lifecycle(event, out);
      return;
    }
    const at = typeof event.output_index === 'number' ? event.output_index : -1;
    switch (event.type) {
      case 'error': {
        const error = event.error as { code: string; message: string };
        this.complete = true;
        out.push({ type: 'error', code: error.code, message: error.message });
        return;
      }
      case 'response.output_item.added':
        this.added(at, event.item as Record_, out);
        return;
      case 'response.output_item.done':
        this.done(at, event.item as ItemField, out);
        return;
      case 'response.content_part.added': {
        const item = this.open(at, 'message');
        const kind = (event.part as { type?: string }).type === 'refusal' ? 'refusal' : 'text';
        // The text part opened when the message was added is this one.
        if (item.fresh && kind === 'text') item.fresh = false;
        else this.startPart(item, kind, out);
        return;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const item = this.open(at, 'message');
        const kind = event.type === 'response.refusal.delta' ? 'refusal' : 'text';
        if (item.part !== kind) this.startPart(item, kind, out);
        item.fresh = false;
        item.streamed = true;
        if (kind === 'refusal') out.push({ type: 'refusal-delta', id: item.key, delta: event.delta as string });
        else {
          const logprobs = event.logprobs as LogProb[] | undefined;
          out.push(
            logprobs && logprobs.length > 0
              ? { type: 'text-delta', id: item.key, delta: event.delta as string, logprobs }
              : { type: 'text-delta', id: item.key, delta: event.delta as string },
          );
        }
        return;
      }
      case 'response.output_text.annotation.added': {
        const item = this.open(at, 'message');
        out.push({ type: 'text-annotation', id: item.key, annotation: event.annotation as never });
        return;
      }
      case 'response.reasoning.delta': {
        const item = this.open(at, 'reasoning');
        item.streamed = true;
        out.push({ type: 'reasoning-delta', id: item.key, delta: event.delta as string });
        return;
      }
      case 'response.reasoning_summary_part.added': {
        const item = this.open(at, 'reasoning');
        this.summaryStart(item, out);
        return;
      }
      case 'response.reasoning_summary_text.delta': {
        const item = this.open(at, 'reasoning');
        if (!item.openSummary) this.summaryStart(item, out);
        out.push({ type: 'reasoning-summary-delta', id: item.key, delta: event.delta as string });
        return;
      }
      case 'response.reasoning_summary_part.done': {
        const item = this.open(at, 'reasoning');
        if (item.openSummary) out.push({ type: 'reasoning-summary-end', id: item.key });
        item.openSummary = false;
        return;
      }
      case 'response.function_call_arguments.delta': {
        const item = this.open(at, 'function_call');
        item.streamed = true;
        out.push({ type: 'function-call-delta', id: item.key, delta: event.delta as string });
        return;
      }
      default:
        // Vendor events pass in forward mode; other unknown and `.done` events add nothing (the item's end does).
        if (/^[a-z0-9_-]+:[a-z0-9_.-]+$/i.test(event.type) && !event.type.startsWith('response.'))
          out.push({ type: 'vendor-event', event: stripSequence(event) as never });
    }
  }

  /** The upstream's stream ended: unless a terminal event came, it was cut. */
  finish(): void {
    if (!this.complete)
      throw new ResponsesError(
        'model_error',
        'upstream_stream_cut',
        'The upstream stream ended before its terminal event; the answer is incomplete.',
      );
  }

  private lifecycle(event: Event, out: ModelPart[]): void {
    const terminal =
      event.type === 'response.completed' || event.type === 'response.failed' || event.type === 'response.incomplete';
    if (!terminal) return;
    const response = readResponse(event.response, `'${event.type}' response`);
    this.complete = true;
    // Items still open end here; a server that streamed nothing but the final output has it streamed now.
    for (const [at, item] of [...this.items]) this.done(at, undefined, out, item);
    if (!this.streamedAny && event.type !== 'response.failed')
      for (const item of response.output)
        if (itemParts(item, this.upstream, out, `whole-${this.wholes++}`)) this.calls++;
    out.push(terminalPart(event.type, response, this.calls > 0));
  }

  private added(at: number, raw: Record_, out: ModelPart[]): void {
    const item = raw;
    const key = String(at);
    const open: OpenItem = {
      id: typeof item.id === 'string' ? item.id : key,
      type: item.type as string,
      key,
      streamed: false,
      summaries: 0,
      openSummary: false,
    };
    this.items.set(at, open);
    this.ids.set(open.id, at);
    this.streamedAny = true;
    // Every item is started (and charged by the output meter) as soon as it is added: an upstream that
    // only ever adds items still reaches the output budget.
    if (item.type === 'message') {
      out.push({ type: 'text-start', id: key });
      open.part = 'text';
      open.fresh = true;
    } else if (item.type === 'reasoning') out.push({ type: 'reasoning-start', id: key });
    else if (item.type !== 'function_call') {
      // An item this gateway does not know passes whole, as the server added it (its later forms are not waited for).
      this.items.delete(at);
      this.passed.add(at);
      out.push({ type: 'item', item: stripId(item) });
    } else {
      this.calls++;
      out.push({
        type: 'function-call-start',
        id: key,
        name: item.name as string,
        callId: typeof item.call_id === 'string' ? item.call_id : undefined,
      });
    }
  }

  /** The open item at `at` of `type` (an event for an item never added opens it, as a quirky server needs). */
  private open(at: number, type: string): OpenItem {
    const found = this.items.get(at);
    if (found) return found;
    if (type === 'function_call')
      throw new ResponsesError(
        'model_error',
        'upstream_invalid_chunk',
        `The upstream streamed call arguments for output ${at} before adding the call.`,
      );
    const item: OpenItem = { id: String(at), type, key: String(at), streamed: false, summaries: 0, openSummary: false };
    this.items.set(at, item);
    this.streamedAny = true;
    return item;
  }

  private startPart(item: OpenItem, kind: 'text' | 'refusal', out: ModelPart[]): void {
    if (item.part === undefined) out.push({ type: kind === 'text' ? 'text-start' : 'refusal-start', id: item.key });
    else out.push({ type: 'message-part-start', id: item.key, kind });
    item.part = kind;
  }

  private summaryStart(item: OpenItem, out: ModelPart[]): void {
    if (item.openSummary) out.push({ type: 'reasoning-summary-end', id: item.key });
    out.push({ type: 'reasoning-summary-start', id: item.key });
    item.openSummary = true;
    item.summaries++;
  }

  /** Ends the item at `at`: what its final form holds and was not streamed is sent now, then its end. */
  private done(at: number, final: ItemField | undefined, out: ModelPart[], known?: OpenItem): void {
    const item = known ?? this.items.get(at);
    this.items.delete(at);
    if (!item && this.passed.delete(at)) return;
    if (!item) {
      // Added and done at once: the whole item.
      if (final) {
        this.streamedAny = true;
        if (itemParts(final, this.upstream, out, `whole-${this.wholes++}`)) this.calls++;
      }
      return;
    }
    const whole = final as Record_ | undefined;
    if (item.type === 'message') {
      if (!item.streamed && whole) {
        // Nothing streamed (a server that sends messages whole): the final content, into the part opened at add.
        ((whole.content ?? []) as Record_[]).forEach((part, index) => {
          const kind = part.type === 'refusal' ? 'refusal' : 'text';
          if (index > 0 || kind !== item.part) this.startPart(item, kind, out);
          const text = (kind === 'refusal' ? part.refusal : part.text) as string | undefined;
          if (text) out.push({ type: kind === 'text' ? 'text-delta' : 'refusal-delta', id: item.key, delta: text });
        });
      }
      out.push({ type: 'text-end', id: item.key });
    } else if (item.type === 'reasoning') {
      if (item.openSummary) out.push({ type: 'reasoning-summary-end', id: item.key });
      if (whole && item.summaries === 0 && !item.streamed) reasoningText(whole, item.key, out);
      out.push({ type: 'reasoning-end', id: item.key, state: stateOf(whole, this.upstream) });
    } else if (item.type === 'function_call') {
      if (!item.streamed && typeof whole?.arguments === 'string' && whole.arguments)
        out.push({ type: 'function-call-delta', id: item.key, delta: whole.arguments });
      out.push({ type: 'function-call-end', id: item.key });
    } else if (whole) {
      out.push({ type: 'item', item: stripId(whole) });
    }
  }
}

/** Parts for one whole upstream item (a JSON answer's output, or an item never streamed); true for a function call. */
export function itemParts(item: ItemField, upstream: string, out: ModelPart[], key: string): boolean {
  const record = item as unknown as Record_;
  switch (record.type) {
    case 'message': {
      let started = false;
      for (const part of (record.content ?? []) as Record_[]) {
        const kind = part.type === 'refusal' ? 'refusal' : 'text';
        if (!started) out.push({ type: kind === 'text' ? 'text-start' : 'refusal-start', id: key });
        else out.push({ type: 'message-part-start', id: key, kind });
        started = true;
        const text = (kind === 'refusal' ? part.refusal : part.text) as string | undefined;
        const logprobs = part.logprobs as LogProb[] | undefined;
        if (text && kind === 'text' && logprobs?.length)
          out.push({ type: 'text-delta', id: key, delta: text, logprobs });
        else if (text) out.push({ type: kind === 'text' ? 'text-delta' : 'refusal-delta', id: key, delta: text });
        if (kind === 'text')
          for (const annotation of (part.annotations ?? []) as never[])
            out.push({ type: 'text-annotation', id: key, annotation });
      }
      if (!started) out.push({ type: 'text-start', id: key });
      out.push({ type: 'text-end', id: key });
      return false;
    }
    case 'reasoning':
      out.push({ type: 'reasoning-start', id: key });
      reasoningText(record, key, out);
      out.push({ type: 'reasoning-end', id: key, state: stateOf(record, upstream) });
      return false;
    case 'function_call':
      out.push({
        type: 'function-call-start',
        id: key,
        name: record.name as string,
        callId: typeof record.call_id === 'string' ? record.call_id : undefined,
      });
      if (record.arguments) out.push({ type: 'function-call-delta', id: key, delta: record.arguments as string });
      out.push({ type: 'function-call-end', id: key });
      return true;
    default:
      out.push({ type: 'item', item: stripId(record) });
      return false;
  }
}

/** A reasoning item's summary and content text, whole. */
function reasoningText(item: Record_, key: string, out: ModelPart[]): void {
  for (const part of (item.summary ?? []) as Array<{ text?: string }>) {
    out.push({ type: 'reasoning-summary-start', id: key });
    if (part.text) out.push({ type: 'reasoning-summary-delta', id: key, delta: part.text });
    out.push({ type: 'reasoning-summary-end', id: key });
  }
  for (const part of (item.content ?? []) as Array<{ text?: string }>)
    if (part.text) out.push({ type: 'reasoning-delta', id: key, delta: part.text });
}

/** The upstream's own encrypted reasoning, to seal and send back to it byte for byte. */
function stateOf(item: Record_ | undefined, upstream: string): ReasoningState | undefined {
  const encrypted = item?.encrypted_content;
  if (typeof encrypted !== 'string' || encrypted === '') return undefined;
  return { kind: 'open-responses', upstream, encrypted_content: encrypted } satisfies OpenResponsesReasoningState;
}

/** A vendor item keeps its fields; the gateway gives it its own id. */
function stripId(item: Record_): { type: string; [key: string]: unknown } {
  const { id: _id, status: _status, ...rest } = item;
  return rest as { type: string };
}

function stripSequence(event: Event): Event {
  const { sequence_number: _n, ...rest } = event;
  return rest as Event;
}

/** The part a terminal event ends the turn with. */
function terminalPart(type: string, response: UpstreamResponse, calls: boolean): ModelPart {
  if (type === 'response.failed') {
    const error = response.error ?? { code: 'upstream_error', message: 'The upstream response failed.' };
    return { type: 'error', code: error.code, message: error.message };
  }
  let reason: FinishReason = calls ? 'tool_calls' : 'stop';
  if (type === 'response.incomplete')
    reason = response.incompleteReason === 'content_filter' ? 'content_filter' : 'length';
  return { type: 'finish', reason, usage: usageOf(response.usage) };
}

export function usageOf(usage: UpstreamUsage | undefined): ModelUsage {
  const out: ModelUsage = { inputTokens: usage?.input_tokens ?? 0, outputTokens: usage?.output_tokens ?? 0 };
  const reasoning = usage?.output_tokens_details?.reasoning_tokens;
  if (reasoning) out.reasoningTokens = reasoning;
  const cached = usage?.input_tokens_details?.cached_tokens;
  if (cached) out.cachedInputTokens = cached;
  return out;
}

/** Parts for a whole JSON answer (a request without `stream`). */
export function responseParts(body: unknown, upstream: string): ModelPart[] {
  const response = readResponse(body, 'response');
  if (response.status === 'failed') {
    const error = response.error ?? { code: 'upstream_error', message: 'The upstream response failed.' };
    return [{ type: 'error', code: error.code, message: error.message }];
  }
  const out: ModelPart[] = [];
  let calls = 0;
  response.output.forEach((item, index) => {
    if (itemParts(item, upstream, out, `whole-${index}`)) calls++;
  });
  out.push(
    terminalPart(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', response, calls > 0),
  );
  return out;
}

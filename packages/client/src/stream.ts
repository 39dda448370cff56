import type { Registry } from '@openresponses/extensions';
import {
  createAccumulator,
  PEER_EVENT_ALIASES,
  type Accumulator,
  type AnyStreamingEvent,
  type StreamingEventByType,
  type StreamingEventType,
} from '@openresponses/events';
import type { ResponseResource, SpecVersion } from '@openresponses/types';
import { type ClientResponse, withOutputText } from './output-text.js';
import { InvalidPayloadError, ResponseFailedError } from './errors.js';
import { checkerFor } from './validators.js';

/** How a stream's events are checked: the spec version, the validation mode, the profile. */
export interface EventPolicy {
  /** The spec version whose schemas validate the events. */
  version: SpecVersion;
  /** `forward` (default): unknown item, content and event types pass intact. `exact`: only the spec. `off`: no validation. */
  validate: 'exact' | 'forward' | 'off';
  /** `lenient` accepts known peer variants: `response.reasoning_text.*` names and missing sequence numbers. */
  profile: 'spec' | 'lenient';
  /** Vendor extensions: events validate with the registry's extended union. */
  registry?: Registry;
}

/**
 * The client's policy for one decoded event at a time (peer variants in the lenient profile, then schema
 * validation), counting the events it has seen; throws InvalidPayloadError for an event that fails it.
 */
function eventNormalizer(policy: EventPolicy): (raw: AnyStreamingEvent) => AnyStreamingEvent {
  const check = checkerFor('StreamingEvent', policy.version, policy.validate, policy.registry);
  let index = 0;
  return (raw) => {
    let event = raw;
    if (policy.profile === 'lenient') {
      const alias = PEER_EVENT_ALIASES[event.type];
      // A peer's variant renamed or completed: still an event the stream carries (validated below).
      if (alias) event = { ...event, type: alias } as AnyStreamingEvent;
      if (typeof event.sequence_number !== 'number') event = { ...event, sequence_number: index } as AnyStreamingEvent;
    }
    if (check) {
      const result = check(event);
      if (!result.success) throw new InvalidPayloadError(`Event ${index} (${event.type})`, result.issues);
    }
    index++;
    return event;
  };
}

/** Applies the client's policy to decoded events: peer variants (lenient) and schema validation. */
export async function* normalizeEvents(
  source: AsyncIterable<AnyStreamingEvent>,
  policy: EventPolicy,
): AsyncGenerator<AnyStreamingEvent> {
  const normalize = eventNormalizer(policy);
  for await (const raw of source) yield normalize(raw);
}

/** The same policy over the events in batches (as `decodeSSE(…).batches()` reads them): one promise per batch. */
export async function* normalizeBatches(
  source: AsyncIterable<readonly AnyStreamingEvent[]>,
  policy: EventPolicy,
): AsyncGenerator<readonly AnyStreamingEvent[]> {
  const normalize = eventNormalizer(policy);
  for await (const batch of source) {
    const events: AnyStreamingEvent[] = [];
    try {
      for (const raw of batch) events.push(normalize(raw));
    } catch (error) {
      // The events before the invalid one are handed out first, as when they are read one by one.
      if (events.length > 0) yield events;
      throw error;
    }
    yield events;
  }
}

/** A stream's events in batches, in order (the form `ResponseStream` reads most cheaply). */
export interface EventBatches {
  /** The events, an array at a time (each array read as the body delivered it). */
  batches(): AsyncIterable<readonly AnyStreamingEvent[]>;
}

/** Events read one at a time, as batches of one (a WebSocket turn's events arrive one message each). */
function inBatchesOfOne(source: AsyncIterable<AnyStreamingEvent>): AsyncIterator<readonly AnyStreamingEvent[]> {
  const events = source[Symbol.asyncIterator]();
  return {
    next: async () => {
      const next = await events.next();
      return next.done ? next : { value: [next.value], done: false };
    },
    return: async () => {
      await events.return?.();
      return { value: undefined, done: true };
    },
  };
}

type Listener = (event: AnyStreamingEvent) => void;

/**
 * A streamed response: an async iterable of typed events (consumed once), typed listeners, the text
 * as it arrives, and the final response. A stream that ends in `response.failed` yields every event,
 * then throws ResponseFailedError (and `finalResponse()` rejects with it).
 */
export class ResponseStream implements AsyncIterable<AnyStreamingEvent> {
  private readonly listeners = new Map<string, Listener[]>();
  private batches: AsyncIterator<readonly AnyStreamingEvent[]> | undefined;
  private done: Promise<ClientResponse> | undefined;
  private failed: { type?: string; code?: string | null; message: string; param?: string | null } | undefined;

  constructor(
    /** The events (validated), one by one or in batches (what the client passes: one promise per body chunk). */
    private readonly source: AsyncIterable<AnyStreamingEvent> | EventBatches,
    private readonly controller: AbortController,
    /** Folds the events (a registry's accumulator folds its vendor events too). */
    private readonly accumulator: Accumulator = createAccumulator(),
  ) {}

  /** The response as far as the stream has come. */
  get response(): ResponseResource | undefined {
    return this.accumulator.response;
  }

  /** Calls `handler` for every event of `type` as the stream is consumed. */
  on<T extends StreamingEventType>(type: T, handler: (event: StreamingEventByType<T>) => void): this {
    const list = this.listeners.get(type) ?? [];
    list.push(handler as Listener);
    this.listeners.set(type, list);
    return this;
  }

  /** Stops the stream and closes its connection. */
  abort(reason?: unknown): void {
    this.controller.abort(reason);
  }

  /** Every event in order (validated per the policy); the stream can be iterated once. */
  async *[Symbol.asyncIterator](): AsyncIterator<AnyStreamingEvent> {
    for await (const batch of this.read())
      for (const event of batch) {
        const failure = this.handOut(event);
        yield event;
        if (failure) throw failure;
      }
  }

  /** Consumes the rest of the stream and returns the final response (with its `output_text`). */
  finalResponse(): Promise<ClientResponse> {
    this.done ??= (async () => {
      // Read in batches, with no promise per event: nobody is iterating the events.
      if (!this.batches)
        for await (const batch of this.read())
          for (const event of batch) {
            const failure = this.handOut(event);
            if (failure) throw failure;
          }
      const response = this.accumulator.response;
      if (!response) throw new Error('The stream ended before a response was created.');
      return withOutputText(response);
    })();
    return this.done;
  }

  /** The output text as it arrives (consumes the stream). */
  async *textStream(): AsyncGenerator<string> {
    for await (const event of this) {
      if (event.type === 'response.output_text.delta')
        yield (event as StreamingEventByType<'response.output_text.delta'>).delta;
    }
  }

  /** The source's batches, read once; at the end, or when the reader stops early, the connection is released. */
  private async *read(): AsyncGenerator<readonly AnyStreamingEvent[]> {
    if (this.batches)
      throw new Error('A ResponseStream can be iterated once; use finalResponse() or listeners to observe it again.');
    const source = this.source;
    const batches =
      'batches' in source
        ? source.batches()[Symbol.asyncIterator]()
        : inBatchesOfOne(source as AsyncIterable<AnyStreamingEvent>);
    this.batches = batches;
    try {
      for (;;) {
        const next = await batches.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await batches.return?.();
      this.controller.abort();
    }
  }

  /**
   * Folds one event and calls its listeners, as it is handed out; the ResponseFailedError to throw once it
   * has been handed out when it is `response.failed`.
   */
  private handOut(event: AnyStreamingEvent): ResponseFailedError | undefined {
    // Events already buffered are not handed out after abort().
    if (this.controller.signal.aborted) throw this.controller.signal.reason ?? new Error('The stream was aborted.');
    this.accumulator.push(event);
    if (event.type === 'error') this.failed = (event as StreamingEventByType<'error'>).error;
    if (this.listeners.size > 0) {
      for (const listener of this.listeners.get(event.type) ?? []) listener(event);
      for (const listener of this.listeners.get('*') ?? []) listener(event);
    }
    if (event.type !== 'response.failed') return undefined;
    const response = (event as StreamingEventByType<'response.failed'>).response;
    return new ResponseFailedError(
      response,
      this.failed ?? {
        message: response.error?.message ?? 'The response failed.',
        code: response.error?.code ?? null,
      },
    );
  }
}

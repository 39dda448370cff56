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

/** Applies the client's policy to decoded events: peer variants (lenient) and schema validation. */
export async function* normalizeEvents(
  source: AsyncIterable<AnyStreamingEvent>,
  policy: EventPolicy,
): AsyncGenerator<AnyStreamingEvent> {
  const check = checkerFor('StreamingEvent', policy.version, policy.validate, policy.registry);
  let index = 0;
  for await (const raw of source) {
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
    yield event;
  }
}

type Listener = (event: AnyStreamingEvent) => void;

/**
 * A streamed response: an async iterable of typed events (consumed once), typed listeners, the text
 * as it arrives, and the final response. A stream that ends in `response.failed` yields every event,
 * then throws ResponseFailedError (and `finalResponse()` rejects with it).
 */
export class ResponseStream implements AsyncIterable<AnyStreamingEvent> {
  private readonly listeners = new Map<string, Listener[]>();
  private iterator: AsyncIterator<AnyStreamingEvent> | undefined;
  private done: Promise<ClientResponse> | undefined;
  private failed: { type?: string; code?: string | null; message: string; param?: string | null } | undefined;

  constructor(
    private readonly source: AsyncIterable<AnyStreamingEvent>,
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
    if (this.iterator)
      throw new Error('A ResponseStream can be iterated once; use finalResponse() or listeners to observe it again.');
    this.iterator = this.source[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await this.iterator.next();
        if (next.done) break;
        // Events already buffered are not handed out after abort().
        if (this.controller.signal.aborted) throw this.controller.signal.reason ?? new Error('The stream was aborted.');
        const event = next.value;
        this.accumulator.push(event);
        if (event.type === 'error') this.failed = (event as StreamingEventByType<'error'>).error;
        for (const listener of this.listeners.get(event.type) ?? []) listener(event);
        for (const listener of this.listeners.get('*') ?? []) listener(event);
        yield event;
        if (event.type === 'response.failed') {
          const response = (event as StreamingEventByType<'response.failed'>).response;
          throw new ResponseFailedError(
            response,
            this.failed ?? {
              message: response.error?.message ?? 'The response failed.',
              code: response.error?.code ?? null,
            },
          );
        }
      }
    } finally {
      await this.iterator.return?.();
      this.controller.abort();
    }
  }

  /** Consumes the rest of the stream and returns the final response (with its `output_text`). */
  finalResponse(): Promise<ClientResponse> {
    this.done ??= (async () => {
      if (!this.iterator) for await (const _ of this);
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
}

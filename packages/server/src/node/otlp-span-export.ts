// The CLI's span export over OTLP http/protobuf (the default protocol), in place of the SDK's batch processor
// and exporter: a span processor that encodes each sampled span as it ends (telemetry/otlp-protobuf.ts) and
// POSTs a batch every OTEL_BSP_MAX_EXPORT_BATCH_SIZE spans or OTEL_BSP_SCHEDULE_DELAY ms. Bounded: at most
// OTEL_BSP_MAX_QUEUE_SIZE spans and MAX_QUEUE_BYTES waiting, one export in flight, each within its timeout
// (its retries included: a collector answering 429, 502, 503 or 504, or a connection refused or reset, is
// asked again after a growing pause or its Retry-After, as the SDK's exporter does); past that spans are
// dropped and counted. A turn never waits for it, and nothing it meets fails one.
// Settings it does not implement (compression, client certificates, another protocol or exporter) keep the
// SDK's path (`ownSpanExportSettings`). Measured in bench/telemetry.bench.ts (profile note).
// Its requests stay on the turns' thread (`otlpRequests`). Measured (callgrind, built package, service.handle
// turns in process, 3,008 counted after 6,000, 512 spans a POST; GC, write barriers and compiles left out):
// against the same turns with the POST patched out they cost the embedded JSON turn +2.5k instructions of 125k
// (+2.0%, two runs) and the stored gateway JSON turn +1.1k to +2.4k of 303k (+0.4-0.8%); --trace-deopt over
// 24,000 turns shows the same deopts with and without them (15-16 in the first 3,000 turns, then one now and
// then in both), so the turns' Node code stays optimised: a steady cost, not repeated deopts. In a worker thread
// (`OtlpPoster`) the turns' thread came to the no-POST level for the embedded turn (126.3k) and showed no cut
// for the gateway (306.7k), while the worker spent 4.2k (embedded) and 5.3-5.6k (gateway) a turn: Node's http
// client runs cold there, ~0.7M instructions an export against ~0.43M here. The process would spend more, so it
// is not used.
import * as http from 'node:http';
import * as https from 'node:https';
import { TraceFlags } from '@opentelemetry/api';
import type { EncodableSpan } from '../telemetry/encodable-span.js';
import type { ProtobufBuffer } from '../telemetry/protobuf-buffer.js';
import { SpanBatch } from '../telemetry/span-batch.js';
import { otlpRequests } from './otlp-post-worker.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Where and how spans are sent; from the environment by `ownSpanExportSettings`. */
export interface SpanExportSettings {
  /** The OTLP traces endpoint (`…/v1/traces`). */
  url: URL;
  /** Headers sent with each export (OTEL_EXPORTER_OTLP_HEADERS, then the traces' own). */
  headers: Readonly<Record<string, string>>;
  /** Each export's whole exchange, in ms. */
  timeoutMs: number;
  /** Spans waiting at most (the batch being written and those waiting to be sent). */
  maxQueueSpans: number;
  /** Encoded bytes waiting at most. */
  maxQueueBytes: number;
  /** Spans per export request at most. */
  maxBatchSpans: number;
  /** How long a batch waits for more spans before it is sent, in ms. */
  scheduleDelayMs: number;
}

/** Bytes of encoded spans waiting at most (a span with captured content can be large): 16 MiB. */
export const MAX_QUEUE_BYTES = 16 * 1024 * 1024;
/** Bytes of one request body at most: 4 MiB (a collector's common limit); a batch is sent when it reaches it. */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
const isSet = (text: string | undefined): text is string => text !== undefined && text.trim() !== '';
const positive = (text: string | undefined, otherwise: number): number => {
  const value = Number(text);
  return isSet(text) && Number.isFinite(value) && value > 0 ? value : otherwise;
};
/** `key=value,…` with URL-encoded parts, as the SDK reads OTEL_EXPORTER_OTLP_HEADERS. */
const headersOf = (text: string | undefined): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const entry of (text ?? '').split(',')) {
    const equals = entry.indexOf('=');
    if (equals <= 0) continue;
    try {
      const key = decodeURIComponent(entry.slice(0, equals).trim());
      const value = decodeURIComponent(entry.slice(equals + 1).trim());
      if (key && value) headers[key] = value;
    } catch {
      // The SDK skips an entry it cannot decode; so do we.
    }
  }
  return headers;
};

/**
 * The settings of our own span export when the environment asks for OTLP traces over http/protobuf with
 * nothing it does not implement; undefined to keep the SDK's exporter: another protocol (http/json, grpc),
 * another exporter beside or instead of `otlp`, compression, client certificates, or
 * `OPENRESPONSES_OTEL_SPAN_EXPORT=sdk`. Reads the SDK's variables with its defaults.
 */
export function ownSpanExportSettings(env: Env): SpanExportSettings | undefined {
  if (env.OPENRESPONSES_OTEL_SPAN_EXPORT?.trim().toLowerCase() === 'sdk') return undefined;
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((name) => name.trim().toLowerCase());
  if (exporters !== undefined && exporters.join(',') !== 'otlp' && exporters.join(',') !== '') return undefined;
  const either = (name: string) => {
    const own = env[`OTEL_EXPORTER_OTLP_TRACES_${name}`];
    return isSet(own) ? own.trim() : env[`OTEL_EXPORTER_OTLP_${name}`]?.trim() || undefined;
  };
  if ((either('PROTOCOL') ?? 'http/protobuf').toLowerCase() !== 'http/protobuf') return undefined;
  const compression = either('COMPRESSION')?.toLowerCase();
  if (compression !== undefined && compression !== 'none') return undefined;
  if (either('CERTIFICATE') || either('CLIENT_KEY') || either('CLIENT_CERTIFICATE')) return undefined;
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const endpoint = own || (general ? `${general.endsWith('/') ? general : `${general}/`}v1/traces` : undefined);
  if (endpoint !== undefined && !URL.canParse(endpoint)) return undefined;
  const url = new URL(endpoint ?? 'http://localhost:4318/v1/traces');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const maxQueueSpans = positive(env.OTEL_BSP_MAX_QUEUE_SIZE, 2048);
  return {
    url,
    headers: { ...headersOf(env.OTEL_EXPORTER_OTLP_HEADERS), ...headersOf(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    timeoutMs: Math.min(positive(either('TIMEOUT'), 10_000), positive(env.OTEL_BSP_EXPORT_TIMEOUT, 30_000)),
    maxQueueSpans,
    maxQueueBytes: MAX_QUEUE_BYTES,
    // The SDK's rule: a batch never larger than the queue.
    maxBatchSpans: Math.min(positive(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512), maxQueueSpans),
    scheduleDelayMs: positive(env.OTEL_BSP_SCHEDULE_DELAY, 5000),
  };
}

/** What the export has done so far, in spans. */
export interface SpanExportCounts {
  /** Sent and answered with a 2xx. */
  exported: number;
  /** Dropped at the queue's bounds (spans or bytes) before any export. */
  dropped: number;
  /** Lost in an export that failed (no answer in time, refused, not 2xx, or its connection gone). */
  failed: number;
  /** Waiting to be sent. */
  queued: number;
}

/**
 * A span processor (the SDK's `SpanProcessor` contract, typed here without it) exporting sampled spans as
 * OTLP http/protobuf. `onProblem` hears the first failure after a success (no more until one succeeds again).
 */
export class OtlpSpanExport {
  private batch = new SpanBatch();
  /** The last sent batch's buffer, for the next batch sealed (two alternate: one written, one sending). */
  private spare: ProtobufBuffer | undefined;
  private readonly waiting: SpanBatch[] = [];
  private queuedSpans = 0;
  private queuedBytes = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private sending: Promise<void> | undefined;
  private stopped = false;
  private failing = false;
  private readonly counts = { exported: 0, dropped: 0, failed: 0 };
  /** Its requests: one keep-alive connection, timeouts and retries (on this thread: see the header). */
  private readonly requests = otlpRequests(http, https);

  constructor(
    /** Where and how it sends (`ownSpanExportSettings`). */
    readonly settings: SpanExportSettings,
    private readonly onProblem: (message: string) => void = () => {},
  ) {}

  /** Nothing: a span is encoded when it ends. */
  onStart(): void {}

  /** Encodes a sampled span into the batch being written (or drops and counts it past the bounds); never throws. */
  onEnd(span: EncodableSpan): void {
    if (this.stopped || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.queuedSpans >= this.settings.maxQueueSpans || this.queuedBytes >= this.settings.maxQueueBytes) {
      this.counts.dropped++;
      return;
    }
    this.queuedBytes += this.batch.add(span);
    this.queuedSpans++;
    if (this.batch.spans >= this.settings.maxBatchSpans || this.batch.bytes >= MAX_BATCH_BYTES) this.seal();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.seal(), this.settings.scheduleDelayMs);
      this.timer.unref();
    }
  }

  /** What it has sent, dropped and lost so far, and what waits. */
  counted(): SpanExportCounts {
    return { ...this.counts, queued: this.queuedSpans };
  }

  /** Sends every span ended so far; settles when each export has been answered or has failed. */
  async forceFlush(): Promise<void> {
    this.seal();
    while (this.sending) await this.sending;
  }

  /** Sends what waits, then takes no more spans and closes its connection. */
  async shutdown(): Promise<void> {
    await this.forceFlush();
    this.stopped = true;
    this.requests.close();
  }

  /** Moves the batch being written to the ones waiting, and starts sending if nothing is in flight. */
  private seal(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.batch.spans > 0) {
      const sealed = this.batch;
      this.waiting.push(sealed);
      // The next batch's buffer starts at this one's size (bounded by MAX_BATCH_BYTES and a span), not regrown from 16 KiB.
      this.batch = new SpanBatch(sealed.bytes, this.spare);
      this.spare = undefined;
    }
    if (this.sending === undefined && this.waiting.length > 0) this.sending = this.sendWaiting();
  }

  private async sendWaiting(): Promise<void> {
    for (let batch = this.waiting.shift(); batch !== undefined; batch = this.waiting.shift()) {
      let sent = false;
      try {
        // A resource's detectors may still be settling (the SDK's batch processor waits for them too).
        for (const resource of batch.resources()) {
          const pending = resource as { asyncAttributesPending?: boolean; waitForAsyncAttributes?(): Promise<void> };
          if (pending.asyncAttributesPending) await pending.waitForAsyncAttributes?.();
        }
        const { url, headers, timeoutMs } = this.settings;
        await this.requests.send({ url: url.href, headers, body: batch.request(), timeoutMs });
        sent = true;
      } catch (error) {
        if (!this.failing)
          this.onProblem(
            `OTLP span export to ${this.settings.url.origin} failed (${(error as Error).message}); spans are dropped and counted until it answers.`,
          );
        this.failing = true;
      }
      // Its request is settled (answered, failed or given up after its retries): its bytes are no longer read.
      this.spare = batch.firstBuffer();
      this.queuedSpans -= batch.spans;
      this.queuedBytes -= batch.bytes;
      if (sent) {
        this.counts.exported += batch.spans;
        this.failing = false;
      } else this.counts.failed += batch.spans;
    }
    this.sending = undefined;
  }
}

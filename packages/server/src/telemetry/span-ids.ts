// Span and trace ids kept as random bytes (the CLI's own tracer, node/own-tracer.ts): the OTLP encoder
// (./otlp-protobuf.ts) copies them as they are, and their hex is made only when someone reads it. Written as
// hex and read back, a traced gateway turn's 11 ids cost ~10k instructions (bench/telemetry.bench.ts's
// gateway profile note).
import type { SpanContext, TraceState } from '@opentelemetry/api';

// A 16 KiB pool filled by one `crypto.getRandomValues` call; a full pool is replaced, never refilled, because
// the ids taken from it keep pointing into it. That is why it is not `@openresponses/events`' pool (`randomHex`),
// which is refilled in place: sharing one would mean that pool replacing itself too, and exporting its bytes.
const POOL_BYTES = 16_384;

/** A pool's bytes and a view of them, which the encoder copies ids through (ProtobufBuffer.copy). */
class IdPool {
  readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer);
  }
}
let pool = new IdPool(new Uint8Array(0));
let next = 0;

/** `length` fresh random bytes, never all zeros (W3C trace context refuses an all-zero id): their offset in `pool`. */
function take(length: number): number {
  for (;;) {
    if (next + length > pool.bytes.length) {
      pool = new IdPool(crypto.getRandomValues(new Uint8Array(POOL_BYTES)));
      next = 0;
    }
    const at = next;
    next += length;
    // A word at a time (ids are 8 or 16 bytes).
    const view = pool.view;
    let any = 0;
    for (let i = at; i < at + length; i += 4) any |= view.getUint32(i);
    if (any !== 0) return at;
  }
}

/** The character codes of a byte's hex digits, high and low (ids here, `traceparent` in ./traceparent.ts). */
export const HEX_HIGH = new Uint8Array(256);
export const HEX_LOW = new Uint8Array(256);
for (let byte = 0; byte < 256; byte++) {
  HEX_HIGH[byte] = '0123456789abcdef'.charCodeAt(byte >>> 4);
  HEX_LOW[byte] = '0123456789abcdef'.charCodeAt(byte & 0xf);
}
// An id's character codes handed to String.fromCharCode.apply in plain arrays: from a typed array V8 copies them
// through a slow elements path (callgrind: a traceparent 6.0k instructions that way, 2.3k this way; a traceparent
// is now made from the ids' bytes, ./traceparent.ts).
const codes16: number[] = new Array(16).fill(0);
const codes32: number[] = new Array(32).fill(0);
/** `length` (8 or 16) bytes of `bytes` from `at`, as lower-case hex. */
function hexOf(bytes: Uint8Array, at: number, length: number): string {
  const codes = length === 8 ? codes16 : codes32;
  for (let i = 0; i < length; i++) {
    const byte = bytes[at + i]!;
    codes[2 * i] = HEX_HIGH[byte]!;
    codes[2 * i + 1] = HEX_LOW[byte]!;
  }
  return String.fromCharCode.apply(null, codes);
}

/**
 * A span context whose ids are bytes in a random pool: the trace id 16 bytes of `traceBytes` from `traceAt`
 * (shared by every span of a trace started here), the span id 8 bytes of `spanBytes` from `spanAt`. `traceId`
 * and `spanId` are made on first read and kept. A trace continued from elsewhere keeps its hex trace id
 * (`traceBytes` undefined). Each id's pool is held as one reference (its bytes and view read through it): two
 * fields fewer than the bytes and the view apart, 16 bytes a span context, four a traced gateway turn.
 */
export class SpanIds implements SpanContext {
  // Declared, not class fields: emitted as ES2022 fields, each was defined before the constructor ran (a define
  // per field), and the tracer's `new SpanIds` went through the generic construct stub rather than inline.
  // Every field is assigned once, in this order, in each branch: one map for every span context.
  /** Set once, by the tracer that decides sampling with the trace id (before the context is handed out). */
  declare traceFlags: number;
  declare readonly traceState: TraceState | undefined;
  declare private traceHex: string | undefined;
  declare private spanHex: string | undefined;
  declare private readonly tracePool: IdPool | undefined;
  declare readonly traceAt: number;
  declare private readonly spanPool: IdPool;
  declare readonly spanAt: number;

  constructor(
    /** The parent's context (its trace id is kept), or undefined for a new trace. */
    parent: SpanContext | undefined,
    traceFlags: number,
    traceState: TraceState | undefined,
  ) {
    this.traceFlags = traceFlags;
    this.traceState = traceState;
    if (parent === undefined) {
      this.traceHex = undefined;
      this.spanHex = undefined;
      const traceAt = take(16);
      this.tracePool = pool;
      this.traceAt = traceAt;
    } else if (parent instanceof SpanIds) {
      this.traceHex = parent.traceHex;
      this.spanHex = undefined;
      this.tracePool = parent.tracePool;
      this.traceAt = parent.traceAt;
    } else {
      this.traceHex = parent.traceId;
      this.spanHex = undefined;
      this.tracePool = undefined;
      this.traceAt = 0;
    }
    const spanAt = take(8);
    this.spanPool = pool;
    this.spanAt = spanAt;
  }

  get traceBytes(): Uint8Array | undefined {
    return this.tracePool?.bytes;
  }

  /** A view of `traceBytes` (the encoder copies through it). */
  get traceView(): DataView | undefined {
    return this.tracePool?.view;
  }

  get spanBytes(): Uint8Array {
    return this.spanPool.bytes;
  }

  /** A view of `spanBytes`. */
  get spanView(): DataView {
    return this.spanPool.view;
  }

  get traceId(): string {
    this.traceHex ??= hexOf(this.traceBytes!, this.traceAt, 16);
    return this.traceHex;
  }

  get spanId(): string {
    this.spanHex ??= hexOf(this.spanBytes, this.spanAt, 8);
    return this.spanHex;
  }
}

// An OTLP trace export request's spans (./otlp-protobuf.ts encodes each as it ends), grouped by resource and
// scope, and the ExportTraceServiceRequest around them, written where the spans are when it can be.
import type { EncodableSpan, SpanResource, SpanScopeName } from './encodable-span.js';
import { ProtobufBuffer, writeAttributes, writeSpan } from './otlp-protobuf.js';
import { varintSize } from './protobuf-buffer.js';

/** The spans of one resource and scope in a batch, encoded as they ended. */
interface ScopeGroup {
  readonly resource: SpanResource;
  readonly scope: SpanScopeName;
  readonly spans: ProtobufBuffer;
}

/**
 * Bytes left free at the start of a group's span buffer, where `request` writes the message heads (resource,
 * scope, lengths) of a batch with one group so that the spans are sent where they were written, not copied.
 */
const HEAD_ROOM = 2048;
/** A group's first buffer when nothing better is known (it doubles as it fills). */
const FIRST_GROUP_BYTES = 16_384;

/** A Resource message (its attributes, none dropped). */
function resourceMessage(resource: SpanResource): ProtobufBuffer {
  const out = new ProtobufBuffer(512);
  writeAttributes(out, 1, resource.attributes);
  out.tag(2, 0);
  out.varint(0);
  return out;
}

/** An InstrumentationScope message. */
function scopeMessage(scope: SpanScopeName): ProtobufBuffer {
  const out = new ProtobufBuffer(256);
  out.tag(1, 2);
  out.string(scope.name);
  if (scope.version) {
    out.tag(2, 2);
    out.string(scope.version);
  }
  if (scope.attributes) writeAttributes(out, 3, scope.attributes);
  if (scope.droppedAttributesCount) {
    out.tag(4, 0);
    out.varint(scope.droppedAttributesCount);
  }
  return out;
}

/**
 * One export request's spans, written as each ends (`add`), grouped by resource and scope in the order first
 * seen (as the SDK's serializer groups them), and `request` for the whole ExportTraceServiceRequest.
 */
export class SpanBatch {
  private readonly groups: ScopeGroup[] = [];
  private body: Uint8Array | undefined;
  /** Spans added. */
  spans = 0;
  /** Bytes of encoded spans so far. */
  bytes = 0;

  /**
   * `expectedBytes`: the encoded spans it will likely hold (the last batch's), its first buffer's size. `spare`:
   * a sent batch's first buffer (`firstBuffer`), written again rather than a new one made and zeroed (~1.2k
   * instructions a traced gateway turn in `memset` and the allocator, bench/README.md's fifteenth-session split).
   */
  constructor(
    private readonly expectedBytes = FIRST_GROUP_BYTES,
    private spare?: ProtobufBuffer,
  ) {}

  /** Encodes `span` into the batch; answers the bytes it took. */
  add(span: EncodableSpan): number {
    const { resource, instrumentationScope: scope } = span;
    let group: ScopeGroup | undefined;
    for (const candidate of this.groups)
      if (candidate.scope === scope && candidate.resource === resource) {
        group = candidate;
        break;
      }
    if (group === undefined) {
      const size =
        HEAD_ROOM + (this.groups.length === 0 ? Math.max(this.expectedBytes, FIRST_GROUP_BYTES) : FIRST_GROUP_BYTES);
      const spare = this.spare;
      this.spare = undefined;
      const spans = spare !== undefined && spare.bytes.length >= size ? spare : new ProtobufBuffer(size);
      spans.pos = HEAD_ROOM;
      group = { resource, scope, spans };
      this.groups.push(group);
    }
    const before = group.spans.pos;
    writeSpan(group.spans, 2, span);
    const size = group.spans.pos - before;
    this.spans++;
    this.bytes += size;
    return size;
  }

  /**
   * The ExportTraceServiceRequest of every span added (read resources' attributes once settled), made once: the
   * spans stay where they were written (a view of their buffer) when the batch has one resource and scope.
   */
  request(): Uint8Array {
    this.body ??= (this.groups.length === 1 ? this.inPlace(this.groups[0]!) : undefined) ?? this.copied();
    return this.body;
  }

  /** The request of a one-group batch written around its spans, or undefined when its heads are too large. */
  private inPlace({ resource, scope, spans }: ScopeGroup): Uint8Array | undefined {
    const described = resourceMessage(resource);
    const named = scopeMessage(scope);
    const spansEnd = spans.pos;
    if (scope.schemaUrl) {
      spans.tag(3, 2);
      spans.string(scope.schemaUrl);
    }
    const scopeSpans = 1 + varintSize(named.pos) + named.pos + (spans.pos - HEAD_ROOM);
    const scopeEnd = spans.pos;
    if (resource.schemaUrl) {
      spans.tag(3, 2);
      spans.string(resource.schemaUrl);
    }
    const resourceSpans =
      1 + varintSize(described.pos) + described.pos + 1 + varintSize(scopeSpans) + scopeSpans + (spans.pos - scopeEnd);
    const head = new ProtobufBuffer(HEAD_ROOM + 16);
    head.tag(1, 2);
    head.varint(resourceSpans);
    head.tag(1, 2);
    head.varint(described.pos);
    head.append(described.written());
    head.tag(2, 2);
    head.varint(scopeSpans);
    head.tag(1, 2);
    head.varint(named.pos);
    head.append(named.written());
    if (head.pos > HEAD_ROOM) {
      spans.pos = spansEnd;
      return undefined;
    }
    spans.bytes.set(head.written(), HEAD_ROOM - head.pos);
    return spans.bytes.subarray(HEAD_ROOM - head.pos, spans.pos);
  }

  /** The request written anew, each group's spans copied in. */
  private copied(): Uint8Array {
    const out = new ProtobufBuffer(this.bytes + 1024);
    for (const resource of this.resources()) {
      const resourceSpans = out.open(1);
      const described = resourceMessage(resource);
      out.tag(1, 2);
      out.raw(described.written());
      for (const group of this.groups) {
        if (group.resource !== resource) continue;
        const scopeSpans = out.open(2);
        out.tag(1, 2);
        out.raw(scopeMessage(group.scope).written());
        // The spans as encoded, each already a tagged field of ScopeSpans.
        out.append(group.spans.bytes.subarray(HEAD_ROOM, group.spans.pos));
        if (group.scope.schemaUrl) {
          out.tag(3, 2);
          out.string(group.scope.schemaUrl);
        }
        out.close(scopeSpans);
      }
      if (resource.schemaUrl) {
        out.tag(3, 2);
        out.string(resource.schemaUrl);
      }
      out.close(resourceSpans);
    }
    return out.written();
  }

  /** Its first group's buffer, free to be written again (`spare`) once its request has been sent or given up. */
  firstBuffer(): ProtobufBuffer | undefined {
    return this.groups[0]?.spans;
  }

  /** The distinct resources of the batch (their attributes may still be settling). */
  resources(): SpanResource[] {
    return [...new Set(this.groups.map((group) => group.resource))];
  }
}

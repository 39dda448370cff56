// A small OTLP/HTTP receiver on 127.0.0.1 for tests: it keeps every export request (path, content type,
// bytes) and decodes the trace exports, http/json and http/protobuf (a protobuf reader of its own, apart from
// the server's encoder), into spans with their attributes as plain values. `answer` makes it fail on purpose.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ExportRequest {
  path: string;
  contentType: string;
  body: Buffer;
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** Its events (the exception events of failures), attributes as plain values. */
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  /** 2 when the span ended in error. */
  statusCode: number;
  serviceName: unknown;
  scope: string;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  requests: ExportRequest[];
  /** Every span of every trace export so far (http/json and http/protobuf). */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

const plainValue = (value: AnyValue): unknown => {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  if ('arrayValue' in value) return (value.arrayValue?.values ?? []).map(plainValue);
  return undefined;
};
const attributesOf = (list: KeyValue[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, plainValue(value)]));

/** A protobuf message's fields by number: varints as numbers (below 2^53), length-delimited as bytes. */
type Fields = Map<number, Array<number | Buffer>>;
function fieldsOf(bytes: Buffer): Fields {
  const fields: Fields = new Map();
  let at = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 1; ; shift *= 128) {
      const byte = bytes[at++]!;
      if (at > bytes.length) throw new Error('truncated protobuf');
      value += (byte & 0x7f) * shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    let value: number | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 1) value = bytes.subarray(at, (at += 8));
    else if (wire === 5) value = bytes.readUInt32LE((at += 4) - 4);
    else if (wire === 2) {
      const length = varint();
      value = bytes.subarray(at, (at += length));
    } else throw new Error(`wire type ${wire}`);
    fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}
const one = (fields: Fields, field: number) => fields.get(field)?.[0];
const messages = (fields: Fields, field: number) => (fields.get(field) ?? []).map((value) => fieldsOf(value as Buffer));
const text = (fields: Fields, field: number) => (one(fields, field) as Buffer | undefined)?.toString('utf8');
const hexOf = (fields: Fields, field: number) => (one(fields, field) as Buffer | undefined)?.toString('hex');
/** An AnyValue as a plain value (int64 values as numbers: the server's are counts, below 2^53). */
const protobufValue = (value: Fields): unknown => {
  if (value.has(1)) return text(value, 1);
  if (value.has(2)) return one(value, 2) === 1;
  if (value.has(3)) return one(value, 3);
  if (value.has(4)) return (one(value, 4) as Buffer).readDoubleLE(0);
  if (value.has(5)) return messages(messages(value, 5)[0]!, 1).map(protobufValue);
  return undefined;
};
const protobufAttributes = (fields: Fields, field: number) =>
  Object.fromEntries(
    messages(fields, field).map((pair) => [text(pair, 1), protobufValue(messages(pair, 2)[0] ?? new Map())]),
  );

/** The spans of an ExportTraceServiceRequest in protobuf. */
export function protobufSpans(body: Buffer): ReceivedSpan[] {
  return messages(fieldsOf(body), 1).flatMap((resourceSpans) => {
    const serviceName = protobufAttributes(messages(resourceSpans, 1)[0] ?? new Map(), 1)['service.name'];
    return messages(resourceSpans, 2).flatMap((scopeSpans) => {
      const scope = text(messages(scopeSpans, 1)[0] ?? new Map(), 1) ?? '';
      return messages(scopeSpans, 2).map((span) => ({
        traceId: hexOf(span, 1)!,
        spanId: hexOf(span, 2)!,
        parentSpanId: hexOf(span, 4) || undefined,
        name: text(span, 5)!,
        kind: (one(span, 6) as number | undefined) ?? 0,
        attributes: protobufAttributes(span, 9),
        events: messages(span, 11).map((event) => ({
          name: text(event, 2)!,
          attributes: protobufAttributes(event, 3),
        })),
        statusCode: (one(messages(span, 15)[0] ?? new Map(), 3) as number | undefined) ?? 0,
        serviceName,
        scope,
      }));
    });
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ExportRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    requests.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
    const json = (req.headers['content-type'] ?? '').includes('json');
    // An empty ExportServiceResponse: `{}` in JSON, no bytes in protobuf.
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    spans: () =>
      requests
        .filter((request) => request.path === '/v1/traces')
        .flatMap((request) => {
          if (request.contentType === 'application/x-protobuf') return protobufSpans(request.body);
          const body = JSON.parse(request.body.toString('utf8')) as {
            resourceSpans: Array<{
              resource: { attributes: KeyValue[] };
              scopeSpans: Array<{
                scope: { name: string };
                spans: Array<{
                  traceId: string;
                  spanId: string;
                  parentSpanId?: string;
                  name: string;
                  kind: number;
                  attributes?: KeyValue[];
                  events?: Array<{ name: string; attributes?: KeyValue[] }>;
                  status?: { code?: number };
                }>;
              }>;
            }>;
          };
          return body.resourceSpans.flatMap((resource) =>
            resource.scopeSpans.flatMap((scope) =>
              scope.spans.map((span) => ({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
                events: (span.events ?? []).map((event) => ({
                  name: event.name,
                  attributes: attributesOf(event.attributes),
                })),
                statusCode: span.status?.code ?? 0,
                serviceName: attributesOf(resource.resource.attributes)['service.name'],
                scope: scope.scope.name,
              })),
            ),
          );
        }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

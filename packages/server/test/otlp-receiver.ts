// A small OTLP/HTTP receiver on 127.0.0.1 for tests: it keeps every export request (path, content type,
// bytes) and decodes the http/json ones into spans with their attributes as plain values.
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
  /** Every span of every http/json trace export so far. */
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
        .filter((request) => request.path === '/v1/traces' && request.contentType.includes('json'))
        .flatMap((request) => {
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

/**
 * The server on Node: `startServer` (HTTP, SSE and WebSocket), the Node listener adapter, `nodeFetch` for
 * upstream calls, the gateway's providers from options, Prometheus metrics and the optional OpenTelemetry
 * SDK.
 *
 * @packageDocumentation
 */
export { startServer, type RunningServer, type StartServerOptions } from './server.js';
export { toNodeListener, type NodeListenerTarget } from './http-adapter.js';
export { serveResponsesSocket, type NodeWebSocket } from './websocket.js';
export { readScenarioFile, scenarioRecordWriter, type ScenarioRecordWriter } from './scenario-files.js';
export { gatewayProviders, type GatewayOptions } from './gateway.js';
export { nodeFetch } from './http-fetch.js';
export { prometheusEndpoint, type PrometheusEndpoint } from './prometheus.js';
export {
  MissingTelemetryPackageError,
  type SdkMetricReader,
  startTelemetry,
  type Telemetry,
  telemetryEnvironmentProblem,
  type TelemetryOptions as TelemetrySdkOptions,
} from './telemetry-sdk.js';
export {
  OtlpSpanExport,
  ownSpanExportSettings,
  type SpanExportCounts,
  type SpanExportSettings,
} from './otlp-span-export.js';
export { type EndedSpans, OwnTracerProvider, type SpanSampler } from './own-tracer.js';
export { readTenantsFile } from './tenants-file.js';

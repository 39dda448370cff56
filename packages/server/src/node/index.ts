export { startServer, type RunningServer, type StartServerOptions } from './server.js';
export { toNodeListener, type NodeListenerTarget } from './http-adapter.js';
export { serveResponsesSocket } from './websocket.js';
export { readScenarioFile, scenarioFileWriter } from './scenario-files.js';
export { gatewayProviders, type GatewayOptions } from './gateway.js';
export { nodeFetch } from './http-fetch.js';

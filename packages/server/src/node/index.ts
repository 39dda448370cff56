export { startServer, type RunningServer, type StartServerOptions } from './server.js';
export { toNodeListener } from './http-adapter.js';
export { serveResponsesSocket, type WebSocketOptions } from './websocket.js';

#!/usr/bin/env node
// openresponses-server: the reference server on the embedded deterministic model.
//   --port N (PORT)  --host H (HOST, default 127.0.0.1)  --api-key K, repeatable (OPENRESPONSES_API_KEYS=k1,k2)
//   --open: no authentication (a warning is printed).  Without keys and without --open, a key is generated and printed.
import { parseArgs } from 'node:util';
import { startServer } from './server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'api-key': { type: 'string', multiple: true },
    open: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(
    'usage: openresponses-server [--port N] [--host H] [--api-key K ...] [--open]\nenv: PORT, HOST, OPENRESPONSES_API_KEYS (comma-separated)',
  );
  process.exit(0);
}
const port = Number(values.port ?? process.env.PORT ?? 8080);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`openresponses-server: invalid port '${values.port ?? process.env.PORT}'`);
  process.exit(2);
}
const envKeys = (process.env.OPENRESPONSES_API_KEYS ?? '')
  .split(',')
  .map((k) => k.trim())
  .filter(Boolean);
let apiKeys = [...(values['api-key'] ?? []), ...envKeys];
if (apiKeys.length === 0 && !values.open) apiKeys = [`or-local-${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`];

const running = await startServer({ port, host: values.host ?? process.env.HOST ?? '127.0.0.1', apiKeys });
const key = apiKeys[0];
console.log(
  `Open Responses server on ${running.url}/v1/responses (HTTP, SSE and WebSocket), model openresponses-deterministic`,
);
if (key) console.log(`API key: ${key}`);
console.log(
  `Try: curl -s ${running.url}/v1/responses -H 'content-type: application/json'${key ? ` -H 'authorization: Bearer ${key}'` : ''} -d '{"model":"openresponses-deterministic","input":"Hello! My name is Ada."}'`,
);

const stop = () => void running.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

#!/usr/bin/env node
// openresponses-server (npx @openresponses/server): the reference server on the embedded deterministic model.
// Without keys and without --open, a key is generated and printed. Add a flag by adding one entry to `options`.
import { limitsFromEnv } from '../limits.js';
import { exitWithUsageError, parseCommandLine } from './command-line.js';
import type { ModelProvider } from '../models/provider.js';
import { ScenarioRecorder } from '../models/recording.js';
import { gatewayProviders } from './gateway.js';
import { readScenarioFile, scenarioFileWriter } from './scenario-files.js';
import { createSealer, parseEncryptionKeys, type EncryptionKey } from '../responses/sealed.js';
import { parseDuration, startServer } from './server.js';
import { storeFromUrl } from './store-url.js';

const name = 'openresponses-server';
const values = parseCommandLine({
  name,
  packageJson: new URL('../../package.json', import.meta.url),
  summary: 'Serves /v1/responses (HTTP, SSE and WebSocket) on the embedded deterministic model.',
  options: {
    port: {
      type: 'string',
      placeholder: 'N',
      env: 'PORT',
      description: 'port to listen on, 0 for a free one (default 8080)',
    },
    host: { type: 'string', placeholder: 'HOST', env: 'HOST', description: 'interface to bind (default 127.0.0.1)' },
    'api-key': {
      type: 'string',
      multiple: true,
      placeholder: 'KEY',
      env: 'OPENRESPONSES_API_KEYS',
      description: 'accepted bearer key, comma-separated in the environment',
    },
    open: { type: 'boolean', description: 'accept requests without a key (a warning is printed)' },
    scenarios: {
      type: 'string',
      placeholder: 'FILE',
      env: 'OPENRESPONSES_SCENARIOS',
      description: 'also serve the scripted answers of a scenario file (JSON; see the README)',
    },
    'no-playground': { type: 'boolean', description: 'do not serve the playground page at /' },
    record: {
      type: 'string',
      placeholder: 'FILE',
      description: 'record every turn the models serve into a scenario file that --scenarios replays',
    },
    'chat-completions-url': {
      type: 'string',
      placeholder: 'URL',
      env: 'OPENRESPONSES_CHAT_COMPLETIONS_URL',
      description: 'serve every other model name from this OpenAI-compatible upstream (base URL ending in /v1)',
    },
    'chat-completions-api-key': {
      type: 'string',
      placeholder: 'KEY',
      env: 'OPENRESPONSES_CHAT_COMPLETIONS_API_KEY',
      description: 'bearer key for that upstream',
    },
    config: {
      type: 'string',
      placeholder: 'PATH',
      env: 'OPENRESPONSES_CONFIG',
      description: 'JSON file routing model names or prefixes to upstreams (keys from named environment variables)',
    },
    'chat-completions': {
      type: 'boolean',
      description: 'also serve the legacy POST /v1/chat/completions (or OPENRESPONSES_CHAT_COMPLETIONS_ENDPOINT=1)',
    },
    store: {
      type: 'string',
      placeholder: 'URL',
      env: 'OPENRESPONSES_STORE_URL',
      description: 'where responses are stored: memory (default) or redis://host:port/db, shared by every instance',
    },
    'store-max-bytes': {
      type: 'string',
      placeholder: 'N',
      env: 'OPENRESPONSES_STORE_MAX_BYTES',
      description:
        'approximate bytes the in-memory store keeps before evicting the least recently used (default 256 MiB)',
    },
    'store-fallback': {
      type: 'string',
      placeholder: 'memory',
      env: 'OPENRESPONSES_STORE_FALLBACK',
      description:
        'serve from memory (with a warning) when the store cannot be reached at start-up, instead of exiting',
    },
    'encryption-key': {
      type: 'string',
      multiple: true,
      placeholder: 'ID:BASE64',
      env: 'OPENRESPONSES_ENCRYPTION_KEYS',
      description:
        'AES-256 key for encrypted_content, current first; older ones still open (default: generated, warned)',
    },
    'websocket-connection-limit': {
      type: 'string',
      placeholder: 'DURATION',
      env: 'OPENRESPONSES_WEBSOCKET_CONNECTION_LIMIT',
      description: 'how long a WebSocket connection may stay open: 90s, 60m, 2h or milliseconds (default 60m)',
    },
    compat: {
      type: 'string',
      placeholder: 'openai',
      env: 'OPENRESPONSES_COMPAT',
      description:
        "'openai': stream OpenAI's event names (response.reasoning_text.*) for the openai SDK's stream helper",
    },
  },
});

const port = Number(values.port ?? 8080);
if (!Number.isInteger(port) || port < 0 || port > 65535) exitWithUsageError(name, `invalid port '${values.port}'`);
const host = values.host ?? '127.0.0.1';
let apiKeys = values['api-key'];
if (apiKeys.length === 0 && !values.open) apiKeys = [`or-local-${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`];

let encryptionKeys: EncryptionKey[];
try {
  encryptionKeys = parseEncryptionKeys(values['encryption-key'].join(','));
  if (encryptionKeys.length > 0) createSealer(encryptionKeys); // checks every key before the server starts
} catch (error) {
  exitWithUsageError(name, `--encryption-key: ${(error as Error).message}`);
}
const limitText = values['websocket-connection-limit'];
const connectionLimitMs = limitText === undefined ? undefined : parseDuration(limitText);
if (connectionLimitMs === null)
  exitWithUsageError(name, `--websocket-connection-limit '${limitText}' is not a duration such as 90s, 60m or 2h`);
if (values.compat !== undefined && values.compat !== 'openai')
  exitWithUsageError(name, `--compat '${values.compat}' is not supported (openai)`);
const compatibility = values.compat;

// Limits (OPENRESPONSES_MAX_BODY_BYTES, …: every ServerLimits field) come from the environment; see the README.
const storeMaxBytes = values['store-max-bytes'] === undefined ? undefined : Number(values['store-max-bytes']);
if (storeMaxBytes !== undefined && !(Number.isSafeInteger(storeMaxBytes) && storeMaxBytes > 0))
  exitWithUsageError(name, `invalid --store-max-bytes '${values['store-max-bytes']}'`);
const store = await storeFromUrl(values.store, { fallback: values['store-fallback'], maxBytes: storeMaxBytes }).catch(
  (error: Error) => {
    console.error(`${name}: ${error.message}`);
    process.exit(1);
  },
);
const providers = await modelProviders(values.scenarios, values.record).catch((error: Error) =>
  exitWithUsageError(name, error.message),
);
const chatCompletionsEndpoint =
  values['chat-completions'] || ['1', 'true'].includes(process.env.OPENRESPONSES_CHAT_COMPLETIONS_ENDPOINT ?? '');
const running = await startServer({
  port,
  host,
  apiKeys,
  providers,
  store,
  chatCompletionsEndpoint,
  limits: limitsFromEnv(process.env),
  playground: !values['no-playground'],
  encryptionKeys,
  connectionLimitMs,
  compatibility,
}).catch((error: NodeJS.ErrnoException) => {
  if (error.code === 'EADDRINUSE')
    console.error(
      `${name}: port ${port} on ${host} is already in use; choose another with --port N (or PORT=N), or --port 0 for a free one.`,
    );
  else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
    console.error(`${name}: cannot listen on ${host}; choose an address of this machine with --host (or HOST).`);
  else if (error.code === 'EACCES')
    console.error(
      `${name}: not allowed to listen on port ${port}; choose a port above 1023 with --port N (or PORT=N).`,
    );
  else throw error;
  process.exit(1);
});
const key = apiKeys[0];
console.log(
  `Open Responses server on ${running.url}/v1/responses (HTTP, SSE and WebSocket), model openresponses-deterministic`,
);
if (values['chat-completions-url'])
  console.log(`Every other model is served by the Chat Completions upstream ${values['chat-completions-url']}`);
if (values.config) console.log(`Model routes from ${values.config}`);
if (key) console.log(`API key: ${key}`);
// The key rides in the fragment: browsers never send it to the server with the page request.
if (!values['no-playground']) console.log(`Playground: ${running.url}/${key ? `#key=${encodeURIComponent(key)}` : ''}`);
console.log(
  `Try: curl -s ${running.url}/v1/responses -H 'content-type: application/json'${key ? ` -H 'authorization: Bearer ${key}'` : ''} -d '{"model":"openresponses-deterministic","input":"Hello! My name is Ada."}'`,
);

const stop = () =>
  void running
    .close()
    .then(() => store.close?.())
    .then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

/**
 * The embedded model, the configured routes and the catch-all upstream (see gatewayProviders), after a
 * scenario file's models when one is given; all recorded with --record.
 */
async function modelProviders(scenarios: string | undefined, record: string | undefined): Promise<ModelProvider[]> {
  const providers = gatewayProviders({
    chatCompletionsUrl: values['chat-completions-url'],
    chatCompletionsApiKey: values['chat-completions-api-key'],
    configPath: values.config,
    env: process.env,
  });
  if (scenarios) providers.unshift(await readScenarioFile(scenarios));
  if (!record) return providers;
  const recorder = new ScenarioRecorder(scenarioFileWriter(record));
  return providers.map((provider) => recorder.wrap(provider));
}

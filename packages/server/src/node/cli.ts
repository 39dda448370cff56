#!/usr/bin/env node
// openresponses-server (npx openresponses-server in the workspace): the reference server on the embedded
// deterministic model. Without keys and without --open, a key is generated and printed. Flags, their
// environment variables, choices and value parsers are declared with commander: every bad value is one line
// naming the flag or variable, exit 2, before anything is generated, printed or opened.
import './v8-pretenuring.js';
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { DEFAULT_LIMITS, type ServerLimits } from '../limits.js';
import type { ModelProvider } from '../models/provider.js';
import { ScenarioRecorder } from '../models/recording.js';
import { Redactor, redactSecretShapes } from '../redaction.js';
import {
  apiKeyList,
  encryptionKeys,
  familyEnvironment,
  familyOptions,
  integer,
  kebab,
  modelRoutes,
  nonNegative,
  parser,
  type RouteSettings,
  SECRET_VALUE,
  storeUrl,
  upstreamBaseUrl,
} from './cli-values.js';
import { gatewayProviders } from './gateway.js';
import { readTenantsFile } from './tenants-file.js';
import { readScenarioFile, scenarioRecordWriter } from './scenario-files.js';
import type { EncryptionKey } from '../responses/sealed.js';
import { parseDuration, startServer } from './server.js';
import { InMemoryResponseStore } from '../stores/memory.js';
import { describeStoreUrl, storeFromUrl, withoutCredentials } from './store-url.js';
import { prometheusEndpoint } from './prometheus.js';
import { failureLogger, type LogFormat, requestLogger } from './request-log.js';
import {
  MissingTelemetryPackageError,
  otlpBannerLine,
  startTelemetry,
  telemetryEnvironmentProblem,
} from './telemetry-sdk.js';

const name = 'openresponses-server';
if (process.argv[2] === 'usage')
  process.exit(await (await import('./usage-command.js')).runUsageCommand(process.argv.slice(3)));
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const program = new Command(name)
  .description('Serves /v1/responses (HTTP, SSE and WebSocket) on the embedded deterministic model.')
  .version(version, '--version', 'print the version')
  .addHelpText('after', `\nAlso: ${name} usage, a running server's usage per day, tenant and model (usage --help).`)
  .helpOption('-h, --help', 'print this help')
  .configureOutput({
    // One line: `<name>: <problem> (see <name> --help)`, without the value of a flag that may hold a secret,
    // and through the redactor (a URL setting quoted in a message keeps no password or `?token=`).
    outputError: (text, write) =>
      write(
        `${name}: ${redactSecretShapes(text.replace(/^error: /, '').replace(SECRET_VALUE, "$1'…'"))
          .trim()
          .replace(/\s*\n\s*/g, ' ')} (see ${name} --help)\n`,
      ),
  })
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .addOption(
    new Option('--port <N>', 'port to listen on, 0 for a free one')
      .env('PORT')
      .default(8080)
      .argParser(parser('a port number (0-65535)', integer(0, 65535))),
  )
  .addOption(new Option('--host <HOST>', 'interface to bind').env('HOST').default('127.0.0.1'))
  .addOption(
    new Option('--api-key <KEY>', 'accepted bearer key (repeatable; comma-separated in the environment)')
      .env('OPENRESPONSES_API_KEYS')
      .argParser(apiKeyList),
  )
  .option('--open', 'accept requests without a key (a warning is printed)')
  .addOption(
    new Option('--scenarios <FILE>', 'also serve the scripted answers of a scenario file (JSON; see the README)').env(
      'OPENRESPONSES_SCENARIOS',
    ),
  )
  .option('--no-playground', 'do not serve the playground page at /')
  .option(
    '--record <FILE>',
    'append every turn the models serve to a JSON Lines scenario file (redacted) that --scenarios replays',
  )
  .addOption(
    new Option(
      '--chat-completions-url <URL>',
      'serve every other model name from this OpenAI-compatible upstream (base URL ending in /v1)',
    )
      .env('OPENRESPONSES_CHAT_COMPLETIONS_URL')
      .argParser(upstreamBaseUrl),
  )
  .addOption(
    new Option('--chat-completions-api-key <KEY>', 'bearer key for that upstream').env(
      'OPENRESPONSES_CHAT_COMPLETIONS_API_KEY',
    ),
  )
  .addOption(
    new Option(
      '--config <PATH>',
      'JSON file routing model names or prefixes to upstreams (keys from named environment variables)',
    ).env('OPENRESPONSES_CONFIG'),
  )
  .addOption(
    new Option('--chat-completions', 'also serve the legacy POST /v1/chat/completions').env(
      'OPENRESPONSES_CHAT_COMPLETIONS_ENDPOINT',
    ),
  )
  .addOption(
    new Option(
      '--store <URL>',
      'where responses are stored: memory, or redis://host:port/db (redis+cluster://host:port for a Redis Cluster) shared by every instance',
    )
      .env('OPENRESPONSES_STORE_URL')
      .default('memory')
      .argParser(storeUrl),
  )
  .addOption(
    new Option('--store-max-bytes <N>', 'approximate bytes the in-memory store keeps before evicting (default 256 MiB)')
      .env('OPENRESPONSES_STORE_MAX_BYTES')
      .argParser(parser('a positive number of bytes', integer(1, Number.MAX_SAFE_INTEGER))),
  )
  .addOption(
    new Option('--store-fallback <memory>', 'serve from memory (with a warning) when the store cannot be reached')
      .env('OPENRESPONSES_STORE_FALLBACK')
      .choices(['memory']),
  )
  .addOption(
    new Option(
      '--encryption-key <ID:BASE64>',
      'AES-256 key for encrypted_content, current first; older ones still open (default: generated, warned)',
    )
      .env('OPENRESPONSES_ENCRYPTION_KEYS')
      .argParser(encryptionKeys),
  )
  .addOption(
    new Option('--websocket-connection-limit <DURATION>', 'how long a WebSocket connection may stay open (default 60m)')
      .env('OPENRESPONSES_WEBSOCKET_CONNECTION_LIMIT')
      .argParser(parser('a duration such as 90s, 60m, 2h or milliseconds', (text) => parseDuration(text) ?? undefined)),
  )
  .addOption(
    new Option('--metrics', 'serve GET /metrics (Prometheus text format) to the metrics key').env(
      'OPENRESPONSES_METRICS',
    ),
  )
  .addOption(
    new Option(
      '--metrics-api-keys',
      'let the API keys read GET /metrics too (it shows every tenant’s model names and token counts)',
    ).env('OPENRESPONSES_METRICS_API_KEYS'),
  )
  .addOption(
    new Option('--metrics-key <KEY>', 'a key that may read GET /metrics and nothing else').env(
      'OPENRESPONSES_METRICS_KEY',
    ),
  )
  .addOption(
    new Option(
      '--log-format <FORMAT>',
      "print one line per request: text, or json (route, status, duration, model, tokens, trace id, a failed turn's code and redacted message; never keys or content). Without it, only failed turns (upstream and server errors, 429s) are printed, to stderr",
    )
      .env('OPENRESPONSES_LOG_FORMAT')
      .choices(['text', 'json']),
  )
  .addOption(
    new Option(
      '--tenants <FILE>',
      "JSON tenants file: each tenant's keys (as sha256 or env variable names), limits, budgets and models",
    ).env('OPENRESPONSES_TENANTS'),
  )
  .addOption(
    new Option(
      '--tenant-lease-ttl <DURATION>',
      'how long a turn or connection of a tenant stays counted after its instance died (default 30s)',
    )
      .env('OPENRESPONSES_TENANT_LEASE_TTL')
      .argParser(parser('a duration such as 90s, 60m, 2h or milliseconds', (text) => parseDuration(text) ?? undefined)),
  )
  .addOption(
    new Option('--admin-key <KEY>', 'a key that may read GET /v1/usage (usage per tenant, model and day)').env(
      'OPENRESPONSES_ADMIN_KEY',
    ),
  )
  .addOption(
    new Option('--compat <MODE>', "stream OpenAI's event names (response.reasoning_text.*) for the openai SDK")
      .env('OPENRESPONSES_COMPAT')
      .choices(['openai']),
  )
  .addOption(
    new Option(
      '--ingress <PROFILE>',
      "request shapes read: openai-superset (agents' namespace, custom and hosted tools; default) or spec (exactly the spec)",
    )
      .env('OPENRESPONSES_INGRESS')
      .choices(['openai-superset', 'spec']),
  );
for (const option of familyOptions()) program.addOption(option);
// Every ServerLimits field is a flag and an environment variable (--max-body-bytes, OPENRESPONSES_MAX_BODY_BYTES, …).
for (const [field, fallback] of Object.entries(DEFAULT_LIMITS))
  program.addOption(
    new Option(`--${kebab(field)} <N>`, `limit ${field} (default ${fallback}; see the limits reference)`)
      .env(`OPENRESPONSES_${kebab(field).replace(/-/g, '_').toUpperCase()}`)
      .argParser(parser('a non-negative number', nonNegative)),
  );
program.parse();

interface CommandLineValues extends Partial<ServerLimits>, RouteSettings {
  port: number;
  host: string;
  apiKey?: string[];
  open?: boolean;
  playground: boolean;
  record?: string;
  chatCompletionsApiKey?: string;
  chatCompletions?: boolean;
  store: string;
  storeMaxBytes?: number;
  storeFallback?: 'memory';
  encryptionKey?: EncryptionKey[];
  websocketConnectionLimit?: number;
  compat?: 'openai';
  ingress?: 'openai-superset' | 'spec';
  metrics?: boolean;
  metricsKey?: string;
  metricsApiKeys?: boolean;
  logFormat?: LogFormat;
  tenants?: string;
  adminKey?: string;
  tenantLeaseTtl?: number;
}
const values = program.opts<CommandLineValues>();
const limits = Object.fromEntries(
  Object.keys(DEFAULT_LIMITS).map((field) => [field, values[field as keyof ServerLimits]]),
);
const usageError = (message: string): never => program.error(message, { exitCode: 2 });
// An OTEL_* value the SDK would silently ignore is a mistake said at start, like a bad flag.
const otelProblem = telemetryEnvironmentProblem(process.env);
if (otelProblem) usageError(otelProblem);
const providers = await modelProviders().catch((error: Error) => usageError(error.message));
const tenantDirectory = values.tenants
  ? await readTenantsFile(values.tenants, process.env).catch((error: Error) => usageError(error.message))
  : undefined;
const store = await storeFromUrl(values.store, {
  fallback: values.storeFallback,
  maxBytes: values.storeMaxBytes,
}).catch((error: Error) => {
  console.error(`${name}: ${redactSecretShapes(error.message)}`);
  process.exit(1);
});
// A key is generated only once the flags are known to be good (and printed only once the port is bound).
const apiKeys =
  values.apiKey ??
  (values.open || tenantDirectory ? [] : [`or-local-${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`]);
// commander sets a boolean from any value of its variable: keep `=0` and `=false` meaning off.
const metricsOn = values.metrics === true && !['0', 'false'].includes(process.env.OPENRESPONSES_METRICS ?? '');
const metricsForApiKeys =
  values.metricsApiKeys === true && !['0', 'false'].includes(process.env.OPENRESPONSES_METRICS_API_KEYS ?? '');
// The compliance CLI's and the client's spelling: the server reads OPENRESPONSES_API_KEYS (a list).
if (process.env.OPENRESPONSES_API_KEY !== undefined && values.apiKey === undefined)
  usageError(
    'OPENRESPONSES_API_KEY is what clients send; the server reads OPENRESPONSES_API_KEYS (comma-separated) or --api-key.',
  );
if (values.metricsKey !== undefined && !metricsOn)
  usageError(
    '--metrics-key (OPENRESPONSES_METRICS_KEY) is set but /metrics is off: add --metrics (OPENRESPONSES_METRICS=true).',
  );
// Fail closed: on a server with keys, metrics nobody may read are a configuration mistake, said at start.
if (metricsOn && apiKeys.length > 0 && !values.metricsKey && !metricsForApiKeys)
  usageError(
    '--metrics (OPENRESPONSES_METRICS) needs --metrics-key (OPENRESPONSES_METRICS_KEY), or --metrics-api-keys to let every API key read them.',
  );
// The SDK is an optional peer: a setting that needs a package not installed is one line naming it.
const missingPackage = (error: Error): never => {
  if (!(error instanceof MissingTelemetryPackageError)) throw error;
  console.error(`${name}: ${error.message}`);
  process.exit(2);
};
// GET /metrics reads a Prometheus reader of the same SDK (registered even without any OTLP environment).
const prometheus = metricsOn ? await prometheusEndpoint().catch(missingPackage) : undefined;
// OpenTelemetry spans and metrics when the standard environment asks for them (OTEL_*; see the README's operations section).
const telemetry = await startTelemetry(process.env, { metricReaders: prometheus ? [prometheus.reader] : [] }).catch(
  missingPackage,
);
if (prometheus && telemetry.plan.disabled)
  console.warn(`${name}: OTEL_SDK_DISABLED=true: no metrics are recorded, so GET /metrics is not served.`);
const metricsServed = prometheus !== undefined && telemetry.started;
const running = await startServer({
  port: values.port,
  host: values.host,
  apiKeys,
  providers,
  store,
  // commander sets a boolean from any value of its variable: keep `=0` and `=false` meaning off.
  chatCompletionsEndpoint:
    values.chatCompletions === true &&
    !['0', 'false'].includes(process.env.OPENRESPONSES_CHAT_COMPLETIONS_ENDPOINT ?? ''),
  limits,
  tenantDirectory,
  adminKey: values.adminKey,
  leaseTtlMs: values.tenantLeaseTtl,
  quotaFallback: values.storeFallback,
  playground: values.playground,
  encryptionKeys: values.encryptionKey,
  connectionLimitMs: values.websocketConnectionLimit,
  compatibility: values.compat,
  ingress: values.ingress,
  metrics: metricsServed
    ? { scrape: prometheus.scrape, key: values.metricsKey, apiKeys: metricsForApiKeys }
    : undefined,
  // Without --log-format, failed turns still reach stderr: an upstream failing must not go unnoticed.
  onRequest: values.logFormat ? requestLogger(values.logFormat) : failureLogger(),
  // Prompts and completions on spans only when asked for (the GenAI conventions' opt-in variable).
  telemetry: {
    captureMessageContent:
      process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true',
  },
}).catch((error: NodeJS.ErrnoException) => {
  const { port, host } = values;
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
const fellBack = store instanceof InMemoryResponseStore && /^rediss?(\+cluster)?:/.test(values.store);
console.log(
  `Store: ${describeStoreUrl(fellBack ? 'memory' : values.store, values.storeMaxBytes)}${fellBack ? ` (fallback: ${withoutCredentials(values.store)} unreachable)` : ''}`,
);
if (tenantDirectory)
  console.log(
    `Tenants: ${tenantDirectory.tenants.size} from ${values.tenants} (limits ${/^rediss?(\+cluster)?:/.test(values.store) && !fellBack ? 'shared through the store' : 'in this process'})${values.adminKey ? `; usage at ${running.url}/v1/usage for the admin key` : ''}`,
  );
for (const route of modelRoutes(values)) console.log(`Model route: ${route}`);
const otlpLine = otlpBannerLine(telemetry.plan, process.env);
if (otlpLine) console.log(otlpLine);
if (metricsServed)
  console.log(
    `Metrics: ${running.url}/metrics (Prometheus text format; ${
      values.metricsKey
        ? metricsForApiKeys && apiKeys.length > 0
          ? 'the metrics key and the API keys'
          : 'the metrics key'
        : apiKeys.length > 0
          ? 'the API keys'
          : 'anyone'
    })`,
  );
if (key) console.log(`API key: ${key}`);
// The key rides in the fragment: browsers never send it to the server with the page request.
if (values.playground) console.log(`Playground: ${running.url}/${key ? `#key=${encodeURIComponent(key)}` : ''}`);
console.log(
  `Try: curl -s ${running.url}/v1/responses -H 'content-type: application/json'${key ? ` -H 'authorization: Bearer ${key}'` : ''} -d '{"model":"openresponses-deterministic","input":"Hello! My name is Ada."}'`,
);

const stop = () =>
  void running
    .close()
    .then(() => store.close?.())
    .then(() => telemetry.shutdown())
    .then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

/**
 * The embedded model, the configured routes and the catch-all upstream (see gatewayProviders), after a
 * scenario file's models when one is given; all recorded with --record.
 */
async function modelProviders(): Promise<ModelProvider[]> {
  const providers = gatewayProviders({
    chatCompletionsUrl: values.chatCompletionsUrl,
    chatCompletionsApiKey: values.chatCompletionsApiKey,
    configPath: values.config,
    env: { ...process.env, ...familyEnvironment(values) },
    limits,
  });
  if (values.scenarios) providers.unshift(await readScenarioFile(values.scenarios));
  if (!values.record) return providers;
  // One JSON line per turn, appended as it ends; the gateway's own keys are redacted too (each provider
  // removes its upstream key).
  const recorder = new ScenarioRecorder(scenarioRecordWriter(values.record), {
    redactor: new Redactor(values.apiKey ?? []),
  });
  return providers.map((provider) => recorder.wrap(provider));
}

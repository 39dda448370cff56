// Metrics without spans through the metrics SDK alone (src/node/metrics-sdk.ts): the CLI's `--metrics` set-up
// loads no @opentelemetry/sdk-node (which brought 24 more OpenTelemetry packages, every exporter and propagator
// it knows), registers the metrics SDK's MeterProvider, and serves the same `GET /metrics` text, byte for byte,
// as through the Node SDK for the same turns. In processes of their own (test/metrics-sdk-turns.ts): the API's
// providers and the own aggregation are global. OTEL_NODE_RESOURCE_DETECTORS (a setting only the Node SDK
// reads) still takes the Node SDK's path: the comparison's other side. OTLP metrics without spans go out on
// SIGTERM (the CLI's shutdown flushes the MeterProvider) with the CLI's resource.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { DiagLogLevel, diag, metrics } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import { expect, test, vi } from 'vitest';
import { registerMeterProvider } from '../src/node/metrics-sdk.js';
import { builtScript } from './built-script.js';
import { startCli } from './cli-process.js';
import { startOtlpReceiver } from './otlp-receiver.js';

const script = await builtScript('metrics-sdk-turns');

interface Run {
  text: string;
  resource: Record<string, unknown>;
  packages: string[];
  meterProvider: string;
}

function run(env: Record<string, string>): Run {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  const result = spawnSync(process.execPath, [script], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...clean, OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test', ...env },
  });
  if (result.status !== 0) throw new Error(`metrics-sdk-turns exited ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Run;
}

test('--metrics alone: no Node SDK loaded, the metrics SDK registered, the same scrape and resource as through the Node SDK', () => {
  const lean = run({});
  const throughNodeSdk = run({ OTEL_NODE_RESOURCE_DETECTORS: 'env,host' });

  expect(lean.packages).not.toContain('@opentelemetry/sdk-node');
  expect(lean.packages).toEqual([
    '@opentelemetry/api',
    '@opentelemetry/core',
    '@opentelemetry/exporter-prometheus',
    '@opentelemetry/resources',
    '@opentelemetry/sdk-metrics',
    '@opentelemetry/semantic-conventions',
  ]);
  // The probe sees the Node SDK where it is loaded.
  expect(throughNodeSdk.packages).toContain('@opentelemetry/sdk-node');
  expect(lean.meterProvider).toBe('MeterProvider');
  expect(throughNodeSdk.meterProvider).toBe('MeterProvider');

  // The turns' histograms, counters and gauges, each value the same (the clock counts its reads).
  expect(lean.text).toMatch(/^gen_ai_server_request_duration_seconds_count\{.+\} 2$/m);
  expect(lean.text).toMatch(/^http_server_request_duration_seconds_count\{.*http_response_status_code="400".*\} 1$/m);
  expect(lean.text).toMatch(/^openresponses_turns_active\{.+\} 0$/m);
  expect(lean.text).toBe(throughNodeSdk.text);

  // The resource (what OTLP metrics carry): the environment's attributes and service.name as the Node SDK reads
  // them; the CLI's own detection adds the process's id and runtime (the SDK's process detector is not run).
  expect(lean.resource).toMatchObject({
    'service.name': 'openresponses-server',
    'deployment.environment.name': 'test',
    'host.name': expect.any(String),
  });
  expect(lean.resource).toEqual({
    ...throughNodeSdk.resource,
    'process.pid': expect.any(Number),
    'process.runtime.name': 'nodejs',
    'process.runtime.version': process.versions.node,
  });
  expect(throughNodeSdk.resource).not.toHaveProperty('process.command_args');
});

test("registerMeterProvider reads what the Node SDK reads for it: OTEL_LOG_LEVEL's level by name, else INFO; OTEL_NODE_EXPERIMENTAL_SDK_METRICS", () => {
  const made: Array<{ sdkMetricsEnabled?: boolean; views?: unknown[] }> = [];
  const sdk = {
    MeterProvider: class {
      constructor(options: (typeof made)[number]) {
        made.push(options);
      }
    },
  } as unknown as Parameters<typeof registerMeterProvider>[1];
  const setLogger = vi.spyOn(diag, 'setLogger').mockReturnValue(true);
  try {
    const levels = Object.entries({ debug: 'DEBUG', ' Verbose ': 'VERBOSE', none: 'NONE', loud: 'INFO', '0': 'INFO' });
    for (const [given, level] of levels) {
      metrics.disable();
      registerMeterProvider({ OTEL_LOG_LEVEL: given }, sdk, {} as Resource, []);
      expect(setLogger.mock.lastCall?.[1], given).toEqual({
        logLevel: DiagLogLevel[level as keyof typeof DiagLogLevel],
      });
    }
    setLogger.mockClear();
    metrics.disable();
    registerMeterProvider({ OTEL_NODE_EXPERIMENTAL_SDK_METRICS: ' TRUE ' }, sdk, {} as Resource, []);
    expect(setLogger).not.toHaveBeenCalled();
    expect(made.at(-1)).toMatchObject({ sdkMetricsEnabled: true, views: [] });
    expect(metrics.getMeterProvider()).toBeInstanceOf(sdk.MeterProvider);
    expect(made[0]).toMatchObject({ sdkMetricsEnabled: false });
  } finally {
    setLogger.mockRestore();
    metrics.disable();
  }
});

test('OTLP metrics without spans: the CLI exports them on SIGTERM (the MeterProvider flushes), with its resource', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const cli = await startCli(['--port', '0', '--api-key', 'k'], {
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${receiver.url}/v1/metrics`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'metrics-only',
      OTEL_METRIC_EXPORT_INTERVAL: '600000',
    });
    expect(cli.output).toContain('OpenTelemetry: metrics over OTLP http/json');
    const answer = await fetch(`${cli.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'openresponses-deterministic', input: 'Hello' }),
    });
    expect(answer.status).toBe(200);
    expect(receiver.requests).toEqual([]);
    const exited = once(cli.child, 'exit');
    cli.child.kill('SIGTERM');
    expect((await exited)[0]).toBe(0);
    expect(receiver.requests.map((request) => request.path)).toEqual(['/v1/metrics']);
    const body = JSON.parse(receiver.requests[0]!.body.toString('utf8')) as {
      resourceMetrics: Array<{
        resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
        scopeMetrics: Array<{ metrics: Array<{ name: string }> }>;
      }>;
    };
    const [exported] = body.resourceMetrics;
    const attributes = new Map(exported!.resource.attributes.map(({ key, value }) => [key, value.stringValue]));
    expect(attributes.get('service.name')).toBe('metrics-only');
    expect(attributes.has('process.pid')).toBe(true);
    expect(exported!.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.name))).toContain(
      'gen_ai.server.request.duration',
    );
  } finally {
    await receiver.close();
  }
});

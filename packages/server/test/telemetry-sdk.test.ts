// The CLI's reading of the standard OpenTelemetry environment: what it registers, and that
// OTEL_SDK_DISABLED=true registers nothing (the end-to-end export is in test/tracing.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  loadOptional,
  MissingTelemetryPackageError,
  startTelemetry,
  TELEMETRY_PACKAGES,
  telemetryEnvironmentProblem,
  telemetryPlan,
} from '../src/node/telemetry-sdk.js';
import { runCliToExit } from './cli-process.js';

describe('telemetryPlan', () => {
  test('nothing without OTEL_* variables', () => {
    expect(telemetryPlan({})).toEqual({ disabled: false, traces: false, otlpMetrics: false, consoleMetrics: false });
    expect(telemetryPlan({ OTEL_SERVICE_NAME: 'gateway', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toMatchObject({
      traces: false,
      otlpMetrics: false,
    });
  });

  test('an OTLP endpoint asks for traces and metrics; signal endpoints for their own signal', () => {
    expect(telemetryPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toMatchObject({
      traces: true,
      otlpMetrics: true,
    });
    expect(telemetryPlan({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toMatchObject({
      traces: true,
      otlpMetrics: false,
    });
    expect(telemetryPlan({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://c:4318/v1/metrics' })).toMatchObject({
      traces: false,
      otlpMetrics: true,
    });
  });

  test('the exporter variables decide over endpoints', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(telemetryPlan({ ...endpoint, OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' })).toMatchObject({
      traces: false,
      otlpMetrics: false,
    });
    expect(telemetryPlan({ OTEL_TRACES_EXPORTER: 'console' })).toMatchObject({ traces: true });
    expect(telemetryPlan({ OTEL_METRICS_EXPORTER: 'console, otlp' })).toMatchObject({
      otlpMetrics: true,
      consoleMetrics: true,
    });
  });

  test('OTEL_SDK_DISABLED=true turns everything off', () => {
    expect(telemetryPlan({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({
      disabled: true,
      traces: false,
      otlpMetrics: false,
      consoleMetrics: false,
    });
    expect(telemetryPlan({ OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({
      traces: true,
    });
  });

  test('without anything asked for, no SDK is loaded or registered', async () => {
    const telemetry = await startTelemetry({ OTEL_SERVICE_NAME: 'x' });
    expect(telemetry.started).toBe(false);
    await telemetry.shutdown();
  });
});

describe('telemetryEnvironmentProblem: OTEL_* values the SDK would silently ignore', () => {
  test('the values the SDK uses pass, in any case and with list spacing', () => {
    expect(telemetryEnvironmentProblem({})).toBeUndefined();
    expect(
      telemetryEnvironmentProblem({
        OTEL_SDK_DISABLED: 'false',
        OTEL_TRACES_EXPORTER: 'otlp, console',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_TRACES_SAMPLER: 'ParentBased_TraceIdRatio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_PROPAGATORS: 'tracecontext,baggage',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318',
        OTEL_METRIC_EXPORT_INTERVAL: '15000',
      }),
    ).toBeUndefined();
  });

  test.each([
    [
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratioo' },
      /^OTEL_TRACES_SAMPLER="parentbased_traceidratioo" is not one of always_on, /,
    ],
    [{ OTEL_TRACES_EXPORTER: 'otlp,jaegr' }, /^OTEL_TRACES_EXPORTER="jaegr" is not among otlp, zipkin, /],
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'http' },
      /^OTEL_EXPORTER_OTLP_PROTOCOL="http" is not one of grpc, http\/protobuf, http\/json\.$/,
    ],
    [{ OTEL_SDK_DISABLED: 'yes' }, /^OTEL_SDK_DISABLED="yes" is not one of true, false\.$/],
    [
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' },
      /^OTEL_TRACES_SAMPLER_ARG="1.5" is not a ratio from 0 to 1/,
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318?token=tok-secret' },
      /^OTEL_EXPORTER_OTLP_ENDPOINT is not an http\(s\) URL/,
    ],
    [
      { OTEL_METRIC_EXPORT_INTERVAL: 'soon' },
      /^OTEL_METRIC_EXPORT_INTERVAL="soon" is not a positive number of milliseconds\.$/,
    ],
  ])('%o', (env, message) => {
    const problem = telemetryEnvironmentProblem(env);
    expect(problem).toMatch(message);
    expect(problem).not.toContain('tok-secret');
  });

  test('the CLI exits 2 with that one line, before anything starts', () => {
    const result = runCliToExit(['--port', '0', '--api-key', 'k'], { OTEL_TRACES_SAMPLER: 'always_onn' });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^openresponses-server: OTEL_TRACES_SAMPLER="always_onn" is not one of always_on, .*\n$/,
    );
  });
});

test('an optional OpenTelemetry package that is not installed is one error naming it, with the install line', async () => {
  const missing = '@opentelemetry/not-installed-here';
  const error = await loadOptional(missing, 'OTEL_* telemetry', () => import(missing)).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MissingTelemetryPackageError);
  expect((error as Error).message).toBe(
    `OTEL_* telemetry needs ${missing}, which is not installed (the OpenTelemetry SDK is optional): npm install ${missing}`,
  );
  expect((error as Error).cause).toBeInstanceOf(Error);
  // Any other failure keeps its own error.
  const other = new Error('boom');
  await expect(loadOptional(missing, 'x', () => Promise.reject(other))).rejects.toBe(other);
  // The packages the CLI loads are optional peers of the server, and nothing else of ours imports them.
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
  };
  for (const name of TELEMETRY_PACKAGES) {
    expect(manifest.peerDependenciesMeta[name]?.optional, name).toBe(true);
    expect(manifest.dependencies[name], name).toBeUndefined();
  }
});

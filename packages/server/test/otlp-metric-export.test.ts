// The own OTLP http/protobuf metric exporter (src/node/otlp-metric-export.ts) against a collector on 127.0.0.1:
// for the same metrics the same request as the SDK's exporter (path, content type, headers, bytes, temporality),
// made outside the calling isolate; a collector that fails fails the export; shutdown with a hung collector
// ends within the export's timeout; and the CLI's `startTelemetry` exports its metrics through it, its worker started
// with telemetry (not at the first export). The exports run in a child process (test/otlp-metric-export-cases.ts):
// the test runner cannot load the SDK's ESM builds.
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, test } from 'vitest';
import { ownMetricExportAllowed } from '../src/node/otlp-metric-export.js';
import { builtScript } from './built-script.js';

describe('the own OTLP metric exporter', () => {
  const cases = new Map<string, Record<string, unknown>>();
  beforeAll(async () => {
    const script = await builtScript('otlp-metric-export-cases');
    const run = spawnSync(process.execPath, [script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.stderr).toBe('');
    for (const line of run.stdout.trim().split('\n')) {
      const findings = JSON.parse(line) as Record<string, unknown>;
      cases.set(findings.case as string, findings);
    }
  });

  test("for the same metrics, the SDK exporter's request: path, content type, headers, bytes; its temporality", () => {
    const { results, received, temporality } = cases.get('same request') as {
      results: unknown[];
      received: Array<Record<string, string>>;
      temporality: number[][];
    };
    expect(results).toEqual([{ code: 0 }, { code: 0 }]);
    const [theirs, ours] = received as [Record<string, string>, Record<string, string>];
    expect(ours).toMatchObject({
      path: '/base/v1/metrics',
      contentType: 'application/x-protobuf',
      tenant: 'two',
      authorization: 'Bearer k',
    });
    expect(ours.hex!.length).toBeGreaterThan(600);
    expect(ours).toEqual(theirs);
    // OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=delta: counter, up-down counter, histogram.
    expect(temporality).toEqual([
      [0, 0],
      [1, 1],
      [0, 0],
    ]);
  });

  test("its request is made outside the calling isolate (the SDK's is made in it)", () => {
    const { startedBySdk, startedByOwn } = cases.get('same request')!;
    expect(startedBySdk).toEqual(['/base/v1/metrics']);
    expect(startedByOwn).toEqual([]);
  });

  test('a collector that fails fails the export, with its status; the next export goes through', () => {
    expect(cases.get('failing collector')).toMatchObject({
      failed: { code: 1, error: 'HTTP 400' },
      requests: 1,
      next: { code: 0 },
    });
  });

  test('shutdown with a hung collector ends within the export timeout (300 ms), the export failed', () => {
    const { shutdownMs, result, afterShutdown } = cases.get('hung collector') as {
      shutdownMs: number;
      result: unknown;
      afterShutdown: unknown;
    };
    expect(shutdownMs).toBeLessThan(5000);
    expect(result).toEqual({ code: 1, error: 'no answer within 300 ms' });
    expect(afterShutdown).toMatchObject({ code: 1 });
  });

  test("startTelemetry's OTLP http/protobuf metrics go out through it: exported, no request made in the isolate; its worker started with telemetry", () => {
    expect(cases.get('startTelemetry')).toMatchObject({
      paths: ['/v1/metrics'],
      counted: true,
      startedHere: [],
      workersStarted: 1,
    });
  });
});

test("compression, client certificates and OPENRESPONSES_OTEL_METRIC_EXPORT=sdk keep the SDK's exporter", () => {
  expect(ownMetricExportAllowed({})).toBe(true);
  expect(ownMetricExportAllowed({ OTEL_EXPORTER_OTLP_COMPRESSION: 'none' })).toBe(true);
  expect(ownMetricExportAllowed({ OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip' })).toBe(false);
  expect(
    ownMetricExportAllowed({ OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip', OTEL_EXPORTER_OTLP_METRICS_COMPRESSION: 'none' }),
  ).toBe(true);
  expect(ownMetricExportAllowed({ OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE: '/ca.pem' })).toBe(false);
  expect(ownMetricExportAllowed({ OTEL_EXPORTER_OTLP_CLIENT_KEY: '/key.pem' })).toBe(false);
  expect(ownMetricExportAllowed({ OPENRESPONSES_OTEL_METRIC_EXPORT: 'SDK' })).toBe(false);
});

// The CLI's reading of the standard OpenTelemetry environment: what it registers, and that
// OTEL_SDK_DISABLED=true registers nothing (the end-to-end export is in test/tracing.test.ts).
import { describe, expect, test } from 'vitest';
import { startTelemetry, telemetryPlan } from '../src/node/telemetry-sdk.js';

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

// A MeterProvider registered after another, recording through the metrics SDK's instruments (no own
// aggregation): a turn, an answer and a tenant's usage like the last ones, whose series the instruments' attribute
// sets keep (telemetry/metrics.ts), are recorded into the new provider's instruments, not the last provider's.
import { type MeterProvider, metrics } from '@opentelemetry/api';
import { afterAll, expect, test } from 'vitest';
import type { ServiceRequest, ServiceResponse } from '../src/exchange.js';
import { httpMetrics } from '../src/handler/middleware.js';
import {
  METRIC_GEN_AI_SERVER_REQUEST_DURATION,
  METRIC_HTTP_SERVER_REQUEST_DURATION,
} from '../src/telemetry/attributes.js';
import { meterTurn } from '../src/telemetry/metrics.js';
import { countTenantUsage } from '../src/telemetry/tenant-usage.js';

afterAll(() => metrics.disable());

/** A provider whose histograms and counters note each value's metric name. */
function notingProvider(): { provider: MeterProvider; names: string[] } {
  const names: string[] = [];
  const meter = {
    createHistogram: (name: string) => ({ record: () => names.push(name) }),
    createCounter: (name: string) => ({ add: () => names.push(name) }),
    createObservableUpDownCounter: () => ({ addCallback: () => {} }),
  };
  return { provider: { getMeter: () => meter } as unknown as MeterProvider, names };
}

/** A turn, its answer and its tenant's usage, each like the one before. */
function turn(): void {
  meterTurn(0, 'stub-model', 'openai', false)!.ended();
  const request = { method: 'POST', path: '/v1/responses', route: '/v1/responses' } as unknown as ServiceRequest;
  const response: ServiceResponse = { status: 200, headers: {}, body: '{}' };
  httpMetrics().answered(request, response, 0);
  countTenantUsage('tenant-a', { inputTokens: 3, cachedTokens: 0, outputTokens: 4, reasoningTokens: 0 });
}

test("a provider registered after another gets the values of a turn, an answer and a tenant like the last ones'", () => {
  const first = notingProvider();
  const second = notingProvider();
  metrics.setGlobalMeterProvider(first.provider);
  turn();
  const recorded = first.names.length;
  metrics.disable();
  metrics.setGlobalMeterProvider(second.provider);
  turn();
  expect(first.names).toHaveLength(recorded);
  expect(second.names).toEqual(first.names);
  expect(second.names).toEqual(
    expect.arrayContaining([
      METRIC_GEN_AI_SERVER_REQUEST_DURATION,
      METRIC_HTTP_SERVER_REQUEST_DURATION,
      'openresponses.tenant.turns',
      'openresponses.tenant.tokens',
    ]),
  );
});

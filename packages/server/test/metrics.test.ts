// GET /metrics on the real CLI (--metrics): a few turns of each kind, then the Prometheus exposition parsed
// with a Prometheus text parser: the GenAI histograms by model, the token usage, the gauges and the 429 counter.
import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';
import { afterEach, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { createResponsesService } from '../src/service/service.js';
import { MAX_REPORTED_NAME_LENGTH } from '../src/telemetry/attributes.js';
import { BUCKETS } from '../src/telemetry/metrics.js';
import { startReplayUpstream, type ReplayUpstream } from '../src/testing/index.js';
import { runCliToExit, startCli } from './cli-process.js';

const KEY = 'k-api';
const METRICS_KEY = 'k-metrics-only';
const DETERMINISTIC = 'openresponses-deterministic';
// Listed by the replay upstream's GET /v1/models: a model name metrics may report as it is.
const GATEWAY_MODEL = 'llama3.2';

let upstream: ReplayUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

const post = (url: string, body: unknown, key = KEY) =>
  fetch(`${url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

const scrape = (url: string, key?: string) =>
  fetch(`${url}/metrics`, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });

/** The family of that name, failing with the names there are when it is missing. */
function family(families: PrometheusFamily[], name: string): PrometheusFamily {
  const found = families.find((f) => f.name === name);
  if (!found) throw new Error(`no ${name} in ${families.map((f) => f.name).join(', ')}`);
  return found;
}

const matches = (sample: PrometheusSample, labels: Record<string, string>) =>
  Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value);
const samples = (f: PrometheusFamily, labels: Record<string, string>) =>
  f.metrics.filter((sample) => matches(sample, labels));

/**
 * An exposition read by the parser: its families (with their types), and the samples of each histogram
 * series by name with their labels. parse-prometheus-text-format 1.1.1 merges the series of a labelled
 * histogram into one (it groups buckets by `le` alone), so the text is read a second time without its
 * histogram TYPE lines, where each `_bucket`, `_count` and `_sum` line is a sample of its own.
 */
function readExposition(text: string) {
  const families = parsePrometheusTextFormat(text);
  const histogramTypes = new Set(
    families.filter((f) => f.type === 'HISTOGRAM').map((f) => `# TYPE ${f.name} histogram`),
  );
  const untyped = parsePrometheusTextFormat(
    text
      .split('\n')
      .filter((line) => !histogramTypes.has(line))
      .join('\n'),
  );
  const all = (name: string, labels: Record<string, string>) =>
    untyped.filter((f) => f.name === name).flatMap((f) => samples(f, labels));
  /** The series of histogram `name` with these labels, summed (count, sum, and cumulative count per bound). */
  const histogram = (name: string, labels: Record<string, string> = {}) => {
    const buckets = new Map<string, number>();
    for (const sample of all(`${name}_bucket`, labels))
      buckets.set(sample.labels!.le!, (buckets.get(sample.labels!.le!) ?? 0) + Number(sample.value));
    const total = (suffix: string) => all(`${name}${suffix}`, labels).reduce((sum, s) => sum + Number(s.value), 0);
    return { series: all(`${name}_count`, labels).length, count: total('_count'), sum: total('_sum'), buckets };
  };
  return { families, histogram };
}

/** The CLI with metrics and the metrics key, in front of a fresh replay upstream (its catch-all route). */
async function startMetricsGateway(extra: string[] = []) {
  upstream = await startReplayUpstream();
  return startCli([
    ...['--port', '0', '--api-key', KEY, '--metrics', '--metrics-key', METRICS_KEY],
    ...['--chat-completions-url', upstream.baseUrl, ...extra],
  ]);
}

describe('GET /metrics on the CLI', () => {
  test('after JSON, streamed, tool and gateway turns: GenAI histograms by model, token usage, gauges, 429s', async () => {
    const { url } = await startMetricsGateway(['--max-web-socket-connections-per-key', '1']);

    // JSON, streamed and a forced tool call on the embedded model; a streamed turn through the gateway.
    expect((await post(url, { model: DETERMINISTIC, input: 'Hello! My name is Ada.' })).status).toBe(200);
    const streamed = await post(url, { model: DETERMINISTIC, input: 'Tell me a story.', stream: true });
    expect(await streamed.text()).toContain('response.completed');
    const tool = await post(url, {
      model: DETERMINISTIC,
      input: 'What is the weather in Paris?',
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } }],
      tool_choice: 'required',
    });
    expect(((await tool.json()) as { output: Array<{ type: string }> }).output.map((item) => item.type)).toContain(
      'function_call',
    );
    const gateway = await post(url, { model: GATEWAY_MODEL, input: 'Hello upstream', stream: true });
    expect(await gateway.text()).toContain('response.completed');
    expect(upstream!.received.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(1);
    // A model name past MAX_REPORTED_NAME_LENGTH (the catch-all route takes any) is labelled _OTHER.
    const longName = 'm'.repeat(MAX_REPORTED_NAME_LENGTH + 1);
    expect((await post(url, { model: longName, input: 'Hello upstream' })).status).toBe(200);

    // One WebSocket connection held open; a second one is over the key's limit (a 429 by reason).
    const socketUrl = `${url.replace('http', 'ws')}/v1/responses`;
    const open = new WebSocket(socketUrl, { headers: { authorization: `Bearer ${KEY}` } });
    await new Promise((resolve, reject) => open.once('open', resolve).once('error', reject));
    const refused = new WebSocket(socketUrl, { headers: { authorization: `Bearer ${KEY}` } });
    const status = await new Promise<number>((resolve) =>
      refused.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0)),
    );
    expect(status).toBe(429);

    // A method the HTTP conventions do not name (WebDAV's, which node:http accepts) is counted as _OTHER.
    const webdav = await fetch(`${url}/v1/responses`, {
      method: 'PROPFIND',
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(webdav.status).toBeGreaterThanOrEqual(400);

    // The metrics-only key reads it and may do nothing else; an API key may not read it (403) unless the
    // operator says so (--metrics-api-keys).
    expect((await post(url, { model: DETERMINISTIC, input: 'hi' }, METRICS_KEY)).status).toBe(401);
    const answer = await scrape(url, METRICS_KEY);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const forbidden = await scrape(url, KEY);
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: { type: 'invalid_request', code: 'metrics_not_allowed' } });
    const text = await answer.text();
    // No host details: the resource's target_info (host name, pid, runtime version) is left out.
    expect(text).not.toMatch(/target_info|host_name|process_pid|process_runtime_version/);
    const { families, histogram } = readExposition(text);
    open.close();
    const bounds = (buckets: ReadonlyMap<string, number>) =>
      [...buckets.keys()].map((le) => (le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le)));

    // Server metrics: one series per model, a count per turn, the conventions' buckets.
    expect(family(families, 'gen_ai_server_request_duration_seconds').type).toBe('HISTOGRAM');
    const own = histogram('gen_ai_server_request_duration_seconds', {
      gen_ai_request_model: DETERMINISTIC,
      gen_ai_provider_name: 'openresponses',
      gen_ai_operation_name: 'chat',
    });
    expect(own.count).toBe(3);
    expect(bounds(own.buckets)).toEqual([...BUCKETS.operation, Number.POSITIVE_INFINITY]);
    expect(own.buckets.get('+Inf')).toBe(3);
    const proxied = histogram('gen_ai_server_request_duration_seconds', {
      gen_ai_request_model: GATEWAY_MODEL,
      gen_ai_provider_name: 'openai',
    });
    expect([proxied.series, proxied.count]).toEqual([1, 1]);
    expect(proxied.sum).toBeGreaterThan(0);

    expect(
      histogram('gen_ai_server_request_duration_seconds', {
        gen_ai_request_model: '_OTHER',
        gen_ai_provider_name: 'openai',
      }).count,
    ).toBe(1);
    expect(histogram('gen_ai_server_request_duration_seconds', { gen_ai_request_model: longName }).series).toBe(0);

    const firstToken = histogram('gen_ai_server_time_to_first_token_seconds', { gen_ai_request_model: DETERMINISTIC });
    expect(firstToken.count).toBe(3);
    expect(bounds(firstToken.buckets)).toEqual([...BUCKETS.firstToken, Number.POSITIVE_INFINITY]);
    expect(histogram('gen_ai_server_time_to_first_token_seconds', { gen_ai_request_model: GATEWAY_MODEL }).count).toBe(
      1,
    );
    const perToken = histogram('gen_ai_server_time_per_output_token_seconds');
    expect(perToken.count).toBeGreaterThan(0);
    expect(bounds(perToken.buckets)).toEqual([...BUCKETS.perOutputToken, Number.POSITIVE_INFINITY]);

    // Client metrics: the gateway's upstream call only (the embedded model calls nobody).
    expect(family(families, 'gen_ai_client_token_usage').type).toBe('HISTOGRAM');
    expect(histogram('gen_ai_client_token_usage', { gen_ai_request_model: DETERMINISTIC }).series).toBe(0);
    const input = histogram('gen_ai_client_token_usage', {
      gen_ai_request_model: GATEWAY_MODEL,
      gen_ai_token_type: 'input',
    });
    const output = histogram('gen_ai_client_token_usage', {
      gen_ai_request_model: GATEWAY_MODEL,
      gen_ai_token_type: 'output',
    });
    expect([input.count, output.count]).toEqual([1, 1]);
    expect(input.sum).toBeGreaterThan(0);
    expect(output.sum).toBeGreaterThan(0);
    expect(bounds(input.buckets)).toEqual([...BUCKETS.tokens, Number.POSITIVE_INFINITY]);
    expect(histogram('gen_ai_client_operation_duration_seconds', { gen_ai_request_model: GATEWAY_MODEL }).count).toBe(
      1,
    );
    const firstChunk = histogram('gen_ai_client_operation_time_to_first_chunk_seconds', {
      gen_ai_request_model: GATEWAY_MODEL,
    });
    expect(firstChunk.count).toBe(1);

    // HTTP: by route template and status.
    const http = (labels: Record<string, string>) => histogram('http_server_request_duration_seconds', labels);
    expect(
      http({ http_route: '/v1/responses', http_response_status_code: '200', http_request_method: 'POST' }).count,
    ).toBe(5);
    // Refused before routing: no route to name.
    expect(http({ http_request_method: 'POST', http_response_status_code: '401' }).count).toBe(1);
    expect(http({ http_request_method: '_OTHER', http_response_status_code: String(webdav.status) }).count).toBe(1);
    expect(http({ http_request_method: 'PROPFIND' }).series).toBe(0);

    // Gauges: nothing running, one WebSocket open at the scrape, five stored responses; one 429.
    const gauge = (name: string, labels: Record<string, string> = {}) =>
      samples(family(families, name), labels).map((sample) => Number(sample.value));
    expect(family(families, 'openresponses_turns_active').type).toBe('GAUGE');
    expect(gauge('openresponses_turns_active')).toEqual([0]);
    expect(gauge('openresponses_background_active')).toEqual([0]);
    expect(gauge('openresponses_websocket_connections')).toEqual([1]);
    expect(gauge('openresponses_store_entries', { openresponses_store_name: 'responses' })).toEqual([5]);
    expect(gauge('openresponses_store_size_bytes', { openresponses_store_name: 'responses' })[0]).toBeGreaterThan(1000);
    const rejections = family(families, 'openresponses_rejections_total');
    expect(rejections.type).toBe('COUNTER');
    expect(samples(rejections, { openresponses_rejection_reason: 'too_many_connections' }).map((s) => s.value)).toEqual(
      ['1'],
    );

    // Per tenant (the API key's, named by its digest): its five finished turns, and their tokens by kind (the
    // replayed upstream reports cached tokens too; nothing here reasons).
    const tenantTurns = family(families, 'openresponses_tenant_turns_total');
    expect(tenantTurns.type).toBe('COUNTER');
    expect(tenantTurns.metrics.map((s) => [s.labels?.openresponses_tenant?.slice(0, 4), s.value])).toEqual([
      ['key_', '5'],
    ]);
    const tenant = tenantTurns.metrics[0]!.labels!.openresponses_tenant!;
    const tenantTokens = family(families, 'openresponses_tenant_tokens_total');
    expect(
      tenantTokens.metrics.map((s) => `${s.labels?.openresponses_tenant} ${s.labels?.gen_ai_token_type}`).sort(),
    ).toEqual([`${tenant} cached`, `${tenant} input`, `${tenant} output`]);
    expect(tenantTokens.metrics.every((s) => Number(s.value) > 0)).toBe(true);
  });

  test('refuses a missing or wrong key with a spec-shaped 401', async () => {
    const { url } = await startCli(['--port', '0', '--api-key', KEY, '--metrics', '--metrics-key', METRICS_KEY]);
    for (const key of [undefined, 'wrong']) {
      const answer = await scrape(url, key);
      expect(answer.status).toBe(401);
      expect(await answer.json()).toMatchObject({
        error: { type: 'authentication_error', code: 'invalid_api_key' },
      });
    }
  });

  test('client-chosen model names cannot grow the scrape: 2,000 distinct names are one _OTHER series', async () => {
    const { url } = await startMetricsGateway();
    const NAMES = 2000;
    const before = (await (await scrape(url, METRICS_KEY)).text()).length;
    let next = 0;
    const worker = async () => {
      while (next < NAMES) {
        const name = `tenant-secret-model-${next++}`;
        expect((await post(url, { model: name, input: 'hi', store: false })).status).toBe(200);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const text = await (await scrape(url, METRICS_KEY)).text();
    expect(text).not.toContain('tenant-secret-model');
    const { histogram } = readExposition(text);
    expect(histogram('gen_ai_server_request_duration_seconds', { gen_ai_request_model: '_OTHER' }).count).toBe(NAMES);
    // The same families as before the turns, with one series each: kilobytes, not the 30-110 MiB of one label per name.
    expect(text.length).toBeLessThan(before + 64 * 1024);
  }, 120_000);

  test('an API key reads it only with --metrics-api-keys; --metrics on a keyed server without a metrics key fails at start', async () => {
    const refused = runCliToExit(['--port', '0', '--api-key', KEY, '--metrics']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^openresponses-server: --metrics \(OPENRESPONSES_METRICS\) needs --metrics-key/);
    const { url, output } = await startCli(['--port', '0', '--api-key', KEY, '--metrics', '--metrics-api-keys']);
    expect(output).toMatch(/Metrics: .*\/metrics \(Prometheus text format; the API keys\)/);
    expect((await scrape(url, KEY)).status).toBe(200);
    expect((await scrape(url, 'wrong')).status).toBe(401);
  });

  test('is a spec-shaped 404 when metrics are off', async () => {
    const { url, output } = await startCli(['--port', '0', '--api-key', KEY]);
    expect(output).not.toContain('Metrics:');
    const answer = await scrape(url, KEY);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ error: { type: 'not_found', code: 'unknown_path' } });
  });
});

describe('GET /metrics in the library (the scrape function injected)', () => {
  const exposition = '# HELP up Up.\n# TYPE up gauge\nup 1\n';
  const get = (service: ReturnType<typeof createResponsesService>, key?: string) =>
    service.fetch(
      new Request('http://server/metrics', { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } }),
    );

  test('a server without API keys but with a metrics key answers to that key only', async () => {
    const service = createResponsesService({ metrics: { scrape: async () => exposition, key: METRICS_KEY } });
    expect((await get(service)).status).toBe(401);
    expect((await get(service, 'anything')).status).toBe(401);
    const answer = await get(service, METRICS_KEY);
    expect([answer.status, await answer.text()]).toEqual([200, exposition]);
  });

  test('an API key is a 403 unless apiKeys lets it read', async () => {
    const service = createResponsesService({ apiKeys: [KEY], metrics: { scrape: async () => exposition } });
    expect((await get(service, KEY)).status).toBe(403);
    expect((await get(service, 'wrong')).status).toBe(401);
  });

  test('with apiKeys, the API keys read it; it takes no rate-limit token and no turn slot', async () => {
    const service = createResponsesService({
      apiKeys: [KEY],
      metrics: { scrape: async () => exposition, apiKeys: true },
      limits: { rateLimitPerSecond: 1, rateLimitBurst: 1, maxTurnsInFlightPerKey: 0 },
    });
    for (let i = 0; i < 5; i++) expect((await get(service, KEY)).status).toBe(200);
    expect((await get(service, METRICS_KEY)).status).toBe(401);
    // The key's one token is still there for a real request (which the zero turn slots then refuse).
    const turn = await service.fetch(
      new Request('http://server/v1/responses', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: DETERMINISTIC, input: 'hi' }),
      }),
    );
    expect(((await turn.json()) as { error: { code: string } }).error.code).toBe('too_many_concurrent_requests');
  });
});

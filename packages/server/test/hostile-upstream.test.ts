// The hostile upstream (issue 23): what each behaviour sends, then the gateway (the real CLI process) in
// front of it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HOSTILE_BEHAVIOURS, type HostileUpstream, startHostileUpstream } from '../src/testing/index.js';
import { type ChildServer, type HealthMonitor, healthzMs, startChildServer, watch } from './child-server.js';

describe('the hostile upstream itself', () => {
  let upstream: HostileUpstream;
  beforeAll(async () => {
    upstream = await startHostileUpstream({ bytes: 100_000, count: 50, maxBytes: 300_000, intervalMs: 5 });
  });
  afterAll(() => upstream.close());

  const post = (behaviour: string, body: Record<string, unknown>, signal?: AbortSignal) =>
    fetch(`${upstream.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-hostile-test-key' },
      body: JSON.stringify({ model: behaviour, ...body }),
      signal,
    });

  test('finite behaviours send what their names say, at the configured size', async () => {
    const json = await post('huge-json-answer', {});
    const completion = (await json.json()) as { choices: Array<{ message: { content: string } }> };
    expect(completion.choices[0]!.message.content.length).toBeGreaterThan(90_000);
    const error = await post('huge-error-body', {});
    expect([error.status, (await error.text()).length]).toEqual([500, 100_000]);
    const list = await fetch(`${upstream.urlFor('huge-model-list')}/models`);
    expect(((await list.json()) as { data: unknown[] }).data.length).toBeGreaterThan(300);
    const keyed = (await (await post('key-in-error', {})).json()) as { error: { param: string; message: string } };
    expect(keyed.error.param).toBe('sk-hostile-test-key');
    expect(keyed.error.message.length).toBeGreaterThan(500);
    const limited = await post('hostile-retry-after', {});
    expect([limited.status, limited.headers.get('retry-after')!.length, limited.headers.get('retry-after-ms')]).toEqual(
      [429, 12 * 1024, '-5000'],
    );
    const calls = await (await post('many-tool-calls', { stream: true })).text();
    expect(calls.match(/"id":"call_\d+"/g)).toHaveLength(50);
    await expect(post('cut-json-answer', {}).then((r) => r.text())).rejects.toThrow();
  });

  test('endless behaviours stop at maxBytes or when the client leaves, and no connection stays open', async () => {
    for (const name of [
      'endless-sse-line',
      'endless-json-body',
      'endless-deltas',
      'logprob-flood',
      'endless-tool-name',
    ]) {
      const text = await (await post(name, { stream: true })).text().catch(() => '');
      expect(text.length, name).toBeGreaterThan(200_000);
      expect(text.length, name).toBeLessThan(400_000);
    }
    const controller = new AbortController();
    const stream = await post('keep-alive-forever', { stream: true }, controller.signal);
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(': keep-alive');
    controller.abort();
    await upstream.waitForConnections(0);
    expect(upstream.served.find((s) => s.behaviour === 'keep-alive-forever')!.closedByGateway).toBe(true);
    expect(Object.keys(HOSTILE_BEHAVIOURS)).toContain('short-answer');
  });

  test("a flood its reader keeps up with lets the upstream's event loop turn every 64 KiB", async () => {
    // The reader on its own thread, draining as fast as it can (as a gateway on another core does): the socket
    // then takes every write, and without the turns the flood ran on microtasks, the test process's /healthz
    // probe unread for seconds (the hostile contract's CI figures of 660-1,480 ms, a probe unanswered for 30 s).
    const floodBytes = 8 * 1024 * 1024;
    const render = (index: number) =>
      `data: ${JSON.stringify({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } })}\n\n`;
    // Turns of the event loop while the flood is written.
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    const upstream = await startHostileUpstream({
      maxBytes: floodBytes,
      behaviours: {
        'small-event-flood': {
          description: 'a flood of 100-byte events',
          serve: async (exchange) => {
            exchange.response.writeHead(200, { 'content-type': 'text/event-stream' });
            setImmediate(count);
            for (let index = 0; await exchange.write(render(index)); index++);
            counting = false;
          },
        },
      },
    });
    try {
      // Raw reads of the socket (no HTTP parsing): the reader outpaces the upstream's writes.
      const body = JSON.stringify({ model: 'small-event-flood', stream: true });
      const request = [
        'POST /v1/chat/completions HTTP/1.1',
        'host: upstream',
        `content-length: ${body.length}`,
        '',
        body,
      ].join('\r\n');
      const reader = new Worker(
        `const { connect } = require('node:net');
        const { workerData, parentPort } = require('node:worker_threads');
        let bytes = 0;
        const socket = connect(workerData.port, '127.0.0.1', () => socket.write(workerData.request));
        socket.on('data', (chunk) => { bytes += chunk.length; });
        socket.on('close', () => parentPort.postMessage(bytes));`,
        { eval: true, workerData: { port: Number(new URL(upstream.baseUrl).port), request } },
      );
      const read = await new Promise<number>((resolve, reject) => {
        reader.once('message', resolve);
        reader.once('error', reject);
      });
      await reader.terminate();
      const written = upstream.served[0]!.bytesWritten;
      expect(read).toBeGreaterThanOrEqual(written);
      // One turn a 64 KiB at the least (128 here); without them, 0 or 1 in the whole flood.
      expect(turns, `event-loop turns while ${written} bytes were written`).toBeGreaterThanOrEqual(
        written / (64 * 1024) / 2,
      );
    } finally {
      await upstream.close();
    }
  });
});

// Issue 23, findings 1 and 2: the gateway (the real CLI process, small upstream limits from the environment)
// in front of the hostile upstream. Each case: the client gets the spec's error, the process lives (/healthz),
// its RSS grows by less than RSS_GROWTH_BOUND, and the upstream reports the connection released (no connection
// left open; for the endless behaviours, closed by the gateway before the answer ended). Without the
// bounded reader the huge cases were read whole and the endless ones held everything the upstream sent (up to
// its 256 MiB guard here); the large versions are in bench/reliability.bench.ts.
describe('the gateway in front of the hostile upstream (findings 1 and 2)', () => {
  const KEY = 'hostile-upstream-gateway-key';
  const LIMITS = {
    bodyBytes: 1024 * 1024,
    eventBytes: 256 * 1024,
    idleMs: 1_000,
    deadlineMs: 3_000,
    models: 100,
  };
  /** Generous: the bounds keep the growth to a few MB; an unbounded read of one case is 4 MiB to 256 MiB of text. */
  const RSS_GROWTH_BOUND = 96 * 1024 * 1024;
  let upstream: HostileUpstream;
  let server: ChildServer;
  let monitor: HealthMonitor;
  let directory: string;

  beforeAll(async () => {
    upstream = await startHostileUpstream({
      bytes: 4 * 1024 * 1024,
      maxBytes: 256 * 1024 * 1024,
      intervalMs: 20,
      behaviours: {
        'small-cut-json': {
          description: 'cut-json-answer at 64 KiB (under the body budget): the connection drops halfway',
          serve: (exchange) =>
            HOSTILE_BEHAVIOURS['cut-json-answer']!.serve(
              Object.create(exchange, { options: { value: { ...exchange.options, bytes: 64 * 1024 } } }),
            ),
        },
        'long-model-list': {
          description: 'a model list of 1,000 short names',
          serve(exchange) {
            const data = Array.from({ length: 1000 }, (_, i) => ({ id: `m-${i}`, object: 'model', owned_by: 'x' }));
            exchange.response
              .writeHead(200, { 'content-type': 'application/json' })
              .end(JSON.stringify({ object: 'list', data }));
          },
        },
      },
    });
    directory = mkdtempSync(path.join(tmpdir(), 'hostile-upstream-'));
    const config = path.join(directory, 'routes.json');
    writeFileSync(
      config,
      JSON.stringify({
        routes: [
          { prefix: 'huge/', url: upstream.urlFor('huge-model-list') },
          { prefix: 'many/', url: upstream.urlFor('long-model-list') },
        ],
      }),
    );
    server = await startChildServer(
      ['--port', '0', '--api-key', KEY, '--chat-completions-url', upstream.baseUrl, '--config', config],
      {
        OPENRESPONSES_MAX_UPSTREAM_BODY_BYTES: String(LIMITS.bodyBytes),
        OPENRESPONSES_MAX_UPSTREAM_EVENT_BYTES: String(LIMITS.eventBytes),
        OPENRESPONSES_UPSTREAM_IDLE_MS: String(LIMITS.idleMs),
        OPENRESPONSES_UPSTREAM_DEADLINE_MS: String(LIMITS.deadlineMs),
        OPENRESPONSES_MAX_UPSTREAM_MODELS: String(LIMITS.models),
      },
    );
    monitor = watch(server, 100);
  });
  afterAll(async () => {
    await monitor?.stop();
    await server?.stop();
    await upstream?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  /** What the client got: the status and the spec error, from a JSON error body or a failed stream's `error` event. */
  async function outcome(response: Response) {
    const text = await response.text();
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      const error = (JSON.parse(text) as { error?: SpecError }).error;
      return { status: response.status, error, deltas: 0, failed: false };
    }
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; error?: SpecError });
    return {
      status: response.status,
      error: events.find((event) => event.type === 'error')?.error,
      deltas: events.filter((event) => event.type === 'response.output_text.delta').length,
      failed: events.at(-1)?.type === 'response.failed',
    };
  }
  type SpecError = { type: string; code: string; param: string | null; message: string };

  /** Runs one case and checks what every case must hold; returns what the client got and how long it took. */
  async function hostileCase(behaviour: string, run: () => Promise<Response>) {
    const before = upstream.served.length;
    const rssBefore = server.rss();
    monitor.reset();
    const started = performance.now();
    const got = await outcome(await run());
    const ms = performance.now() - started;
    await upstream.waitForConnections(0, 10_000);
    const served = upstream.served.slice(before).filter((s) => s.behaviour === behaviour);
    expect(served.length, `${behaviour} reached the upstream`).toBeGreaterThan(0);
    expect(server.alive(), server.output()).toBe(true);
    expect(await healthzMs(server.url, 30_000), '/healthz after the case').toBeLessThan(Infinity);
    const growth = Math.max((await monitor.figures()).peakRss, server.rss()) - rssBefore;
    growths[behaviour] = growth;
    expect(growth, `RSS growth during ${behaviour} (bytes)`).toBeLessThan(RSS_GROWTH_BOUND);
    if (got.error) expect(Object.keys(got.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    return { got, ms, served };
  }
  const growths: Record<string, number> = {};
  afterAll(() => {
    const lines = Object.entries(growths).map(([name, bytes]) => `${name}: ${(bytes / 2 ** 20).toFixed(1)} MiB`);
    console.log(`RSS growth per case (bound ${RSS_GROWTH_BOUND / 2 ** 20} MiB): ${lines.join(', ')}`);
  });

  const turn = (model: string, stream: boolean) =>
    fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model, input: 'hello', stream }),
    });

  test('finding 1: a JSON answer over the body budget is upstream_response_too_large, read no further', async () => {
    const { got, served } = await hostileCase('huge-json-answer', () => turn('huge-json-answer', false));
    expect([got.status, got.error?.type, got.error?.code]).toEqual([500, 'model_error', 'upstream_response_too_large']);
    expect(got.error?.message).toContain(String(LIMITS.bodyBytes));
    // A finite answer may sit whole in the sockets' buffers before the gateway drops it: the proof of release
    // here is that no connection stays open (hostileCase); the endless cases below prove the gateway closed it.
    expect(served).toHaveLength(1);
  });

  test('finding 1: a huge error body is read to 64 KiB; the client gets the upstream error, its message cut', async () => {
    const { got, served } = await hostileCase('huge-error-body', () => turn('huge-error-body', false));
    expect([got.status, got.error?.type, got.error?.code]).toEqual([500, 'model_error', 'upstream_error']);
    expect(got.error!.message.length).toBeLessThan(1000);
    expect(served).toHaveLength(1);
  });

  test('finding 1: GET /v1/models drops a list over the body budget, lists at most maxUpstreamModels, asks once', async () => {
    const models = () => fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    const { got, served } = await hostileCase('huge-model-list', async () => {
      const response = await models();
      const body = (await response.json()) as { data: Array<{ id: string }> };
      const ids = body.data.map((model) => model.id);
      expect(ids.filter((id) => id.startsWith('huge/'))).toEqual([]);
      expect(ids.filter((id) => id.startsWith('many/'))).toHaveLength(LIMITS.models);
      expect(ids).toContain('openresponses-deterministic');
      return new Response(JSON.stringify({}), { status: response.status });
    });
    expect(got.status).toBe(200);
    expect(served).toHaveLength(1);
    // Cached for every client: another listing asks no upstream (the failed one included, for a minute).
    const asked = upstream.served.length;
    expect((await models()).status).toBe(200);
    expect(upstream.served.length).toBe(asked);
  });

  test('finding 1: a streamed line without end is upstream_event_too_large at the event bound', async () => {
    const { got, served } = await hostileCase('endless-sse-line', () => turn('endless-sse-line', true));
    expect([got.error?.type, got.error?.code]).toEqual(['model_error', 'upstream_event_too_large']);
    expect(got.status === 500 || got.failed).toBe(true);
    expect(served[0]!.closedByGateway).toBe(true);
    expect(served[0]!.bytesWritten).toBeLessThan(64 * 1024 * 1024);
  });

  test('finding 10: a JSON answer cut mid-body is reported as a cut, not as invalid JSON', async () => {
    const { got } = await hostileCase('small-cut-json', () => turn('small-cut-json', false));
    expect([got.status, got.error?.type, got.error?.code]).toEqual([500, 'model_error', 'upstream_response_cut']);
  });

  test('finding 2: a JSON body that never ends stops at the body budget', async () => {
    const { got, served } = await hostileCase('endless-json-body', () => turn('endless-json-body', false));
    expect([got.status, got.error?.code]).toEqual([500, 'upstream_response_too_large']);
    expect(served[0]!.closedByGateway).toBe(true);
  });

  test('finding 2: a JSON body dripping forever (every chunk within the idle time) stops at the deadline', async () => {
    const { got, ms, served } = await hostileCase('dripping-json-body', () => turn('dripping-json-body', false));
    expect([got.status, got.error?.type, got.error?.code]).toEqual([504, 'server_error', 'upstream_deadline_exceeded']);
    expect(ms).toBeGreaterThanOrEqual(LIMITS.deadlineMs - 50);
    expect(ms, 'ten times the deadline').toBeLessThan(10 * LIMITS.deadlineMs);
    expect(served[0]!.closedByGateway).toBe(true);
  });

  test('finding 2: endless keep-alive comments do not restart the idle timer', async () => {
    const { got, ms, served } = await hostileCase('keep-alive-forever', () => turn('keep-alive-forever', true));
    // The idle timer, not the deadline: the comments every 20 ms did not count as activity.
    expect([got.error?.type, got.error?.code]).toEqual(['server_error', 'upstream_timeout']);
    expect(ms, 'ten times the idle time').toBeLessThan(10 * LIMITS.idleMs);
    expect(served[0]!.closedByGateway).toBe(true);
  });

  test('finding 2: endless deltas (each one an event) stop at the deadline, the response failed after its text', async () => {
    const { got, ms, served } = await hostileCase('dripping-deltas', () => turn('dripping-deltas', true));
    expect([got.status, got.failed, got.error?.type, got.error?.code]).toEqual([
      200,
      true,
      'server_error',
      'upstream_deadline_exceeded',
    ]);
    expect(got.deltas).toBeGreaterThan(10);
    expect(ms).toBeGreaterThanOrEqual(LIMITS.deadlineMs - 50);
    expect(ms, 'ten times the deadline').toBeLessThan(10 * LIMITS.deadlineMs);
    expect(served[0]!.closedByGateway).toBe(true);
  });
});

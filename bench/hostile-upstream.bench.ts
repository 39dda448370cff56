// The large versions of the hostile-upstream proof (issue 23, findings 1 and 2; the small ones run in
// packages/server/test/hostile-upstream.test.ts against the CLI): a gateway with the default upstream limits
// (but a 5 s idle time and a 10 s deadline, so that a run ends) in front of the hostile upstream, both in this
// process. Before the bounded reader, a 600 MiB answer, error body or model list threw ERR_STRING_TOO_LONG and
// killed the process, and the endless ones grew without limit (4.6 GB at death). Each case prints what the
// client got, how long it took, what the upstream wrote and the RSS growth (peak, sampled every 25 ms).
import { ChatCompletionsProvider, DEFAULT_LIMITS } from '@openresponses/server';
import { nodeFetch, startServer } from '@openresponses/server/node';
import { startHostileUpstream } from '@openresponses/server/testing';

const MiB = 1024 * 1024;
const LIMITS = { upstreamIdleMs: 5_000, upstreamDeadlineMs: 10_000 };

export async function run(): Promise<void> {
  const upstream = await startHostileUpstream({ bytes: 600 * MiB, maxBytes: 4096 * MiB, intervalMs: 20 });
  const provider = (url: string, prefix?: string) =>
    new ChatCompletionsProvider({
      baseUrl: url,
      fetch: nodeFetch,
      limits: LIMITS,
      ...(prefix ? { route: { prefix } } : {}),
    });
  const server = await startServer({
    providers: [provider(upstream.urlFor('huge-model-list'), 'huge/'), provider(upstream.baseUrl)],
    warn: () => {},
  });
  const cases: Array<[string, () => Promise<Response>]> = [
    ['huge-json-answer', () => turn('huge-json-answer', false)],
    ['huge-error-body', () => turn('huge-error-body', false)],
    ['huge-model-list', () => fetch(`${server.url}/v1/models`)],
    ['endless-sse-line', () => turn('endless-sse-line', true)],
    ['endless-json-body', () => turn('endless-json-body', false)],
    ['dripping-json-body', () => turn('dripping-json-body', false)],
    ['keep-alive-forever', () => turn('keep-alive-forever', true)],
    ['endless-deltas', () => turn('endless-deltas', true)],
    ['dripping-deltas', () => turn('dripping-deltas', true)],
  ];
  function turn(model: string, stream: boolean) {
    return fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: 'hello', stream }),
    });
  }
  console.log(
    `\nGateway (default upstream limits: body ${DEFAULT_LIMITS.maxUpstreamBodyBytes / MiB} MiB, event ${DEFAULT_LIMITS.maxUpstreamEventBytes / MiB} MiB; idle ${LIMITS.upstreamIdleMs / 1000} s, deadline ${LIMITS.upstreamDeadlineMs / 1000} s here) in front of the hostile upstream (600 MiB answers, endless ones up to 4 GiB)`,
  );
  console.log(
    `${'behaviour'.padEnd(20)} ${'client got'.padEnd(62)} ${'time'.padStart(8)} ${'upstream wrote'.padStart(15)} ${'RSS growth'.padStart(11)}`,
  );
  for (const [name, request] of cases) {
    globalThis.gc?.();
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 25);
    const served = upstream.served.length;
    const started = performance.now();
    const response = await request();
    const text = await response.text();
    const ms = performance.now() - started;
    await upstream.waitForConnections(0, 30_000);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    const written = upstream.served.slice(served).reduce((sum, s) => sum + s.bytesWritten, 0);
    console.log(
      `${name.padEnd(20)} ${outcome(response.status, text).padEnd(62)} ${`${(ms / 1000).toFixed(1)} s`.padStart(8)} ${`${(written / MiB).toFixed(1)} MiB`.padStart(15)} ${`${((peak - before) / MiB).toFixed(1)} MiB`.padStart(11)}`,
    );
  }
  await server.close();
  await upstream.close();
}

/** The status and the error code (a JSON error, or a stream's error event), or the final status of a stream. */
function outcome(status: number, text: string): string {
  if (text.startsWith('{')) {
    const body = JSON.parse(text) as { error?: { code: string }; data?: unknown[] };
    return body.error ? `${status} ${body.error.code}` : `${status} ${body.data?.length ?? 0} models`;
  }
  const events = text
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; error?: { code: string }; response?: unknown });
  const error = events.find((event) => event.type === 'error')?.error;
  const deltas = events.filter((event) => event.type === 'response.output_text.delta').length;
  return `${status} ${events.at(-1)?.type ?? '?'}${error ? ` ${error.code}` : ''} (${deltas} deltas)`;
}

// The gateway's cost: a client calling a Chat Completions upstream stub directly (POST /v1/chat/completions)
// side by side with the same client calling the reference server's POST /v1/responses, which the gateway
// serves from that stub (the deployment defaults: the response is stored in the in-memory store, no
// request log). Loader and stub are child processes, the gateway runs in this one; all connections are
// keep-alive (the gateway's upstream calls too, through nodeFetch). Requests/s, p50/p99 and each process's
// CPU per request under load (non-streaming and streaming, alternating rounds, median round), then the
// added time to first token of a streamed answer measured one request at a time.
import { load, median, rps, type LoadResult } from './fixtures/load.js';
import { ChatCompletionsProvider, createResponsesService } from '@openresponses/server';
import { nodeFetch, startServer } from '@openresponses/server/node';
import { startStub, type UpstreamProcess } from './fixtures/upstream-process.js';

/** A load round with each process's CPU per request (µs): the loader's, the stub's and this process's (the gateway's). */
interface Round extends LoadResult {
  cpu: { loader: number; stub: number; gateway: number };
}

async function measured(
  stub: UpstreamProcess,
  url: string,
  body: string,
  concurrency: number,
  seconds: number,
): Promise<Round> {
  const stubBefore = await stub.cpu();
  const ownBefore = process.cpuUsage();
  const result = await load(url, body, concurrency, seconds);
  const own = process.cpuUsage(ownBefore);
  const stubMicros = (await stub.cpu()) - stubBefore;
  return Object.assign(result, {
    cpu: {
      loader: result.cpuMicros / result.requests,
      stub: stubMicros / result.requests,
      gateway: (own.user + own.system) / result.requests,
    },
  });
}

/** ms from sending the request to the first text delta, one request at a time. */
async function timeToFirstToken(url: string, body: string, marker: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    let first = 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      text += next.value;
      if (!first && text.includes(marker)) first = performance.now() - started;
    }
    times.push(first);
  }
  return times.sort((a, b) => a - b);
}

export async function run(): Promise<void> {
  const stub = await startStub();
  const gateway = await startServer({
    warn: () => {},
    // The deployment defaults otherwise: the in-memory store, no request log.
    providers: [new ChatCompletionsProvider({ baseUrl: stub.url, fetch: nodeFetch })],
  });
  const direct = `${stub.url}/chat/completions`;
  const via = `${gateway.url}/v1/responses`;
  const chatBody = (stream: boolean) =>
    JSON.stringify({
      model: 'stub-model',
      messages: [{ role: 'user', content: 'Hello! What can you do?' }],
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    });
  const responsesBody = (stream: boolean, store = true) =>
    JSON.stringify(
      Object.assign(
        { model: 'stub-model', input: 'Hello! What can you do?' },
        store ? {} : { store: false },
        stream ? { stream: true } : {},
      ),
    );

  const concurrency = 16;
  const cases = [
    { title: 'Non-streaming (JSON)', stream: false, store: true },
    { title: 'Non-streaming (JSON), store: false', stream: false, store: false },
    { title: 'Streaming (SSE)', stream: true, store: true },
  ];
  for (const { title, stream, store } of cases) {
    await load(direct, chatBody(stream), concurrency, 0.5);
    await load(via, responsesBody(stream, store), concurrency, 0.5);
    const rounds: Array<{ direct: Round; gateway: Round }> = [];
    for (let round = 0; round < 5; round++)
      rounds.push({
        direct: await measured(stub, direct, chatBody(stream), concurrency, 2),
        gateway: await measured(stub, via, responsesBody(stream, store), concurrency, 2),
      });
    const ratios = rounds.map((r) => rps(r.gateway) / rps(r.direct));
    const d = median(
      rounds.map((r) => r.direct),
      rps,
    );
    const g = median(
      rounds.map((r) => r.gateway),
      rps,
    );
    const cpu = (path: 'direct' | 'gateway', process: 'loader' | 'stub' | 'gateway') =>
      median(
        rounds.map((r) => r[path].cpu[process]),
        (x) => x,
      );
    console.log(
      `\n${title}, ${concurrency} concurrent keep-alive connections, 5 alternating rounds of 2 s; median round`,
    );
    console.log(
      `${'path'.padEnd(40)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}  CPU µs per request: loader, stub, gateway`,
    );
    for (const [name, r, path] of [
      ['direct to the upstream stub', d, 'direct'],
      ['through the gateway (/v1/responses)', g, 'gateway'],
    ] as const)
      console.log(
        `${name.padEnd(40)} ${Math.round(rps(r)).toLocaleString('en-US').padStart(8)} ${r.p50.toFixed(2).padStart(7)} ${r.p99.toFixed(2).padStart(7)}  ${[cpu(path, 'loader'), cpu(path, 'stub'), path === 'gateway' ? cpu(path, 'gateway') : 0].map((c) => (c ? c.toFixed(0) : '-').padStart(5)).join(' ')}`,
      );
    console.log(
      `ratio per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}; median ${median(ratios, (r) => r).toFixed(2)}x of direct (target >= 0.80x); added p50 ${(g.p50 - d.p50).toFixed(2)} ms (target < 1 ms)`,
    );
    // What the CPU allows: one request costs the direct path loader + stub, the gateway path loader +
    // gateway + stub, on 2 cores, each process on at most one of them.
    const l = cpu('direct', 'loader');
    const s = cpu('direct', 'stub');
    const gw = cpu('gateway', 'gateway');
    const ceiling = (costs: number[]) =>
      Math.min(1e6 / Math.max(...costs), (2 * 1e6) / costs.reduce((a, b) => a + b, 0));
    console.log(
      `CPU ceiling on 2 cores: direct ${Math.round(ceiling([l, s])).toLocaleString('en-US')} req/s, through the gateway ${Math.round(ceiling([cpu('gateway', 'loader'), gw, cpu('gateway', 'stub')])).toLocaleString('en-US')} req/s; a gateway that cost only one server-side and one client-side HTTP exchange (stub + loader, ${(l + s).toFixed(0)} µs) would allow at most ${(ceiling([l, l + s, s]) / ceiling([l, s])).toFixed(2)}x`,
    );
  }

  await timeToFirstToken(direct, chatBody(true), '"content":"Hello!"', 50);
  await timeToFirstToken(via, responsesBody(true), 'response.output_text.delta', 50);
  const directTtft = await timeToFirstToken(direct, chatBody(true), '"content":"Hello!"', 300);
  const gatewayTtft = await timeToFirstToken(via, responsesBody(true), 'response.output_text.delta', 300);
  const p50 = (times: number[]) => times[Math.floor(times.length / 2)]!;
  console.log(
    `\nTime to first token, one request at a time (300 each): direct p50 ${p50(directTtft).toFixed(2)} ms, through the gateway p50 ${p50(gatewayTtft).toFixed(2)} ms; added ${(p50(gatewayTtft) - p50(directTtft)).toFixed(2)} ms`,
  );

  // The gateway's own work without the extra process hop: in this process, 16 concurrent callers either
  // POST to the stub (what a direct client does) or run a whole gateway turn (validation, mapping, the
  // same upstream call, events writer, Responses JSON). On an oversubscribed machine the loopback runs
  // above mostly measure how soon the scheduler wakes a third process.
  const service = createResponsesService({
    providers: [new ChatCompletionsProvider({ baseUrl: stub.url, fetch: nodeFetch })],
  });
  const callers = async (one: () => Promise<unknown>) => {
    let count = 0;
    const end = performance.now() + 1_000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < end) {
          await one();
          count++;
        }
      }),
    );
    return count;
  };
  const directCall = async () =>
    (
      await nodeFetch(direct, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: chatBody(false),
      })
    ).json();
  const turnText = responsesBody(false);
  const gatewayTurn = () =>
    service.handle({
      method: 'POST',
      path: '/v1/responses',
      header: (name) => (name === 'content-type' ? 'application/json' : null),
      text: async () => turnText,
    });
  await callers(directCall);
  await callers(gatewayTurn);
  const inProcess: number[] = [];
  for (let round = 0; round < 5; round++) inProcess.push((await callers(gatewayTurn)) / (await callers(directCall)));
  console.log(
    `\nIn one process, 16 concurrent callers, 5 alternating rounds of 1 s: a whole gateway turn vs a direct POST to the stub, ratio per round ${inProcess.map((r) => r.toFixed(2)).join(' ')}; median ${median(inProcess, (r) => r).toFixed(2)}x`,
  );
  await gateway.close();

  stub.stop();
}

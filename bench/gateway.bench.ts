// The gateway's cost: a client calling a Chat Completions upstream stub directly (POST /v1/chat/completions)
// side by side with the same client calling the reference server's POST /v1/responses, which the gateway
// serves from that stub. Loader, stub and gateway are three processes on loopback. Requests/s and p50/p99
// under load (non-streaming and streaming, alternating rounds, median round), then the added time to first
// token of a streamed answer measured one request at a time.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { load, median, rps, type LoadResult } from './fixtures/load.js';
import { ChatCompletionsProvider, createResponsesService } from '@openresponses/server';
import { nodeFetch, startServer } from '@openresponses/server/node';

async function startStub(): Promise<{ url: string; stop: () => void }> {
  const stub = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./fixtures/chat-completions-stub.ts', import.meta.url))],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve) =>
    stub.stdout!.once('data', (data: Buffer) => resolve(data.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}/v1`, stop: () => stub.kill() };
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
  const responsesBody = (stream: boolean) =>
    JSON.stringify({
      model: 'stub-model',
      input: 'Hello! What can you do?',
      store: false,
      ...(stream ? { stream: true } : {}),
    });

  const concurrency = 16;
  for (const stream of [false, true]) {
    await load(direct, chatBody(stream), concurrency, 0.5);
    await load(via, responsesBody(stream), concurrency, 0.5);
    const rounds: Array<{ direct: LoadResult; gateway: LoadResult }> = [];
    for (let round = 0; round < 5; round++)
      rounds.push({
        direct: await load(direct, chatBody(stream), concurrency, 2),
        gateway: await load(via, responsesBody(stream), concurrency, 2),
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
    console.log(
      `\n${stream ? 'Streaming (SSE)' : 'Non-streaming (JSON)'}, ${concurrency} concurrent keep-alive connections, 5 alternating rounds of 2 s; median round`,
    );
    console.log(`${'path'.padEnd(44)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`);
    for (const [name, r] of [
      ['direct to the upstream stub', d],
      ['through the gateway (/v1/responses)', g],
    ] as const)
      console.log(
        `${name.padEnd(44)} ${Math.round(rps(r)).toLocaleString('en-US').padStart(9)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)}`,
      );
    console.log(
      `ratio per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}; median ${median(ratios, (r) => r).toFixed(2)}x of direct (target >= 0.80x); added p50 ${(g.p50 - d.p50).toFixed(2)} ms (target < 1 ms)`,
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

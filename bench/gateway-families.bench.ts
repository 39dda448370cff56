// The added cost of a turn through each provider family, side by side: the gateway in this process serves
// /v1/responses from the replay upstream of @openresponses/server/testing (in its own process), which answers
// as Chat Completions, for `claude-*` models as Anthropic's Messages API, under /v1beta as the Gemini API and on
// /v1/responses as a native Responses server (the open-responses family), from the recordings the gateway tests
// use. A loader process calls either the upstream directly in its own wire format or the gateway, in
// alternating rounds; each round records every process's CPU per request. Then the same turns in one
// process, without the loader: the gateway's CPU per turn for each family.
import {
  AnthropicMessagesProvider,
  ChatCompletionsProvider,
  createResponsesService,
  GeminiProvider,
  OpenResponsesProvider,
} from '@openresponses/server';
import { nodeFetch, startServer } from '@openresponses/server/node';
import { load, median, rps, type LoadResult } from './fixtures/load.js';
import { startReplayUpstreamProcess, type UpstreamProcess } from './fixtures/upstream-process.js';

const KEY = 'bench-anthropic-key';
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(0)}`;
const PROMPT = 'Hello! What can you do?';

interface Family {
  name: string;
  model: string;
  /** The upstream's own endpoint, what a client of that API calls directly (Gemini streams at another path). */
  direct(stream: boolean): string;
  directBody(stream: boolean): string;
  directHeaders: Record<string, string>;
  /** A marker of the answer's text, to check each path answers what it should before measuring. */
  text: string;
}

interface Round extends LoadResult {
  cpu: { loader: number; upstream: number; gateway: number };
}

async function measured(
  upstream: UpstreamProcess,
  url: string,
  body: string,
  headers: Record<string, string>,
  seconds: number,
): Promise<Round> {
  const upstreamBefore = await upstream.cpu();
  const ownBefore = process.cpuUsage();
  const result = await load(url, body, 16, seconds, Infinity, headers);
  const own = process.cpuUsage(ownBefore);
  const upstreamMicros = (await upstream.cpu()) - upstreamBefore;
  return Object.assign(result, {
    cpu: {
      loader: result.cpuMicros / result.requests,
      upstream: upstreamMicros / result.requests,
      gateway: (own.user + own.system) / result.requests,
    },
  });
}

export async function run(): Promise<void> {
  const upstream = await startReplayUpstreamProcess();
  const providers = [
    new AnthropicMessagesProvider({
      baseUrl: upstream.url,
      apiKey: KEY,
      route: { prefix: 'claude-', keepPrefix: true },
      fetch: nodeFetch,
    }),
    new GeminiProvider({
      baseUrl: upstream.url.replace(/\/v1$/, ''),
      apiKey: KEY,
      route: { prefix: 'gemini-', keepPrefix: true },
      fetch: nodeFetch,
    }),
    new OpenResponsesProvider({
      baseUrl: upstream.url,
      name: 'open-responses',
      route: { prefix: 'responses-', keepPrefix: true },
      fetch: nodeFetch,
    }),
    new ChatCompletionsProvider({ baseUrl: upstream.url, fetch: nodeFetch }),
  ];
  // The deployment defaults otherwise: responses stored in the in-memory store, no request log.
  const gateway = await startServer({ warn: () => {}, providers });
  const via = `${gateway.url}/v1/responses`;
  const families: Family[] = [
    {
      name: 'Chat Completions',
      model: 'gpt-bench',
      direct: () => `${upstream.url}/chat/completions`,
      directBody: (stream) =>
        JSON.stringify({
          model: 'gpt-bench',
          messages: [{ role: 'user', content: PROMPT }],
          ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
        }),
      directHeaders: {},
      text: 'Hello',
    },
    {
      name: 'Anthropic Messages',
      model: 'claude-sonnet-4-5-20250929',
      direct: () => `${upstream.url}/messages`,
      directBody: (stream) =>
        JSON.stringify({
          model: 'claude-sonnet-4-5-20250929',
          max_tokens: 4096,
          messages: [{ role: 'user', content: [{ type: 'text', text: PROMPT }] }],
          ...(stream ? { stream: true } : {}),
        }),
      directHeaders: { 'anthropic-version': '2023-06-01', 'x-api-key': KEY },
      text: 'Hello',
    },
    {
      name: 'Gemini',
      model: 'gemini-2.5-flash',
      direct: (stream) =>
        `${upstream.url.replace(/\/v1$/, '')}/v1beta/models/gemini-2.5-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      directBody: () => JSON.stringify({ contents: [{ role: 'user', parts: [{ text: PROMPT }] }] }),
      directHeaders: { 'x-goog-api-key': KEY },
      text: 'Hello',
    },
    {
      // Its recording carries a reasoning summary (with encrypted_content) before the text, as OpenAI streams it.
      name: 'Open Responses',
      model: 'responses-reasoning-text',
      direct: () => `${upstream.url}/responses`,
      directBody: (stream) =>
        JSON.stringify({ model: 'responses-reasoning-text', input: PROMPT, ...(stream ? { stream: true } : {}) }),
      directHeaders: {},
      text: 'Hello',
    },
  ];
  const responsesBody = (family: Family, stream: boolean) =>
    JSON.stringify(Object.assign({ model: family.model, input: PROMPT }, stream ? { stream: true } : {}));

  // Each path answers what it should: the upstream in its wire format, the gateway a completed response.
  for (const family of families) {
    for (const stream of [false, true]) {
      const direct = await fetch(family.direct(stream), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...family.directHeaders },
        body: family.directBody(stream),
      });
      const directText = await direct.text();
      const answer = await fetch(via, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: responsesBody(family, stream),
      });
      const answerText = await answer.text();
      if (direct.status !== 200 || !directText.includes(family.text))
        throw new Error(`${family.name} upstream answered ${direct.status}: ${directText.slice(0, 200)}`);
      if (answer.status !== 200 || !answerText.includes('"completed"') || !answerText.includes(family.text))
        throw new Error(`${family.name} through the gateway answered ${answer.status}: ${answerText.slice(0, 200)}`);
      if (stream) {
        const events = (text: string) => text.split(/\r?\n\r?\n/).filter((b) => b.includes('data:')).length;
        console.log(
          `${family.name}: ${events(directText)} upstream SSE events -> ${events(answerText) - 1} Responses events`,
        );
      }
    }
  }

  const summary: string[] = [];
  for (const stream of [false, true]) {
    const paths = families.flatMap((family) => [
      {
        family,
        path: 'direct' as const,
        url: family.direct(stream),
        body: family.directBody(stream),
        headers: family.directHeaders,
      },
      { family, path: 'gateway' as const, url: via, body: responsesBody(family, stream), headers: {} },
    ]);
    for (const p of paths) await load(p.url, p.body, 16, 0.5, Infinity, p.headers);
    const rounds: Round[][] = [];
    for (let round = 0; round < 5; round++) {
      const results: Round[] = [];
      for (const p of paths) results.push(await measured(upstream, p.url, p.body, p.headers, 2));
      rounds.push(results);
    }
    const at = (index: number) =>
      median(
        rounds.map((r) => r[index]!),
        rps,
      );
    const cpuOf = (index: number, process: keyof Round['cpu']) =>
      median(
        rounds.map((r) => r[index]!.cpu[process]),
        (x) => x,
      );
    console.log(
      `\n${stream ? 'Streaming (SSE)' : 'Non-streaming (JSON), stored'}, 16 concurrent keep-alive connections, 5 alternating rounds of 2 s; median round`,
    );
    console.log(
      `${'family, path'.padEnd(48)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}  CPU µs per request: loader, upstream, gateway`,
    );
    for (const [index, p] of paths.entries()) {
      const r = at(index);
      const gatewayCpu = p.path === 'gateway' ? cpuOf(index, 'gateway').toFixed(0) : '-';
      console.log(
        `${`${p.family.name}, ${p.path === 'direct' ? 'direct to the upstream' : 'through the gateway'}`.padEnd(48)} ${Math.round(rps(r)).toLocaleString('en-US').padStart(8)} ${r.p50.toFixed(2).padStart(7)} ${r.p99.toFixed(2).padStart(7)}  ${cpuOf(index, 'loader').toFixed(0).padStart(5)} ${cpuOf(index, 'upstream').toFixed(0).padStart(5)} ${gatewayCpu.padStart(5)}`,
      );
    }
    for (const [f, family] of families.entries()) {
      const ratios = rounds.map((r) => rps(r[2 * f + 1]!) / rps(r[2 * f]!));
      console.log(
        `${family.name}: gateway / direct per round ${ratios.map((x) => x.toFixed(2)).join(' ')}; median ${median(ratios, (x) => x).toFixed(2)}x`,
      );
    }
    // Each family against Chat Completions (the first), per round.
    const chat = cpuOf(1, 'gateway');
    const line = `${stream ? 'SSE' : 'JSON'}: gateway CPU per turn, ${families
      .slice(1)
      .map((family, i) => {
        const cpu = cpuOf(2 * (i + 1) + 1, 'gateway');
        const perRound = rounds.map((r) => r[2 * (i + 1) + 1]!.cpu.gateway - r[1]!.cpu.gateway);
        return `${family.name} ${cpu.toFixed(0)} µs (${(cpu / chat).toFixed(2)}x; difference per round ${perRound.map((x) => x.toFixed(0)).join(' ')} µs)`;
      })
      .join(', ')} vs Chat Completions ${chat.toFixed(0)} µs`;
    console.log(line);
    summary.push(line);
  }

  // The same turns in one process, no loader and no HTTP server side: 16 concurrent callers run whole
  // gateway turns (validation, mapping, the upstream call over keep-alive, events, the Responses JSON);
  // CPU per turn of this process, the families alternating in 5 rounds of 1 s.
  const service = createResponsesService({ providers });
  const turn = (family: Family) => {
    const text = responsesBody(family, false);
    return () =>
      service.handle({
        method: 'POST',
        path: '/v1/responses',
        header: (name) => (name === 'content-type' ? 'application/json' : null),
        text: async () => text,
      });
  };
  const cpuPerTurn = async (one: () => Promise<unknown>) => {
    let count = 0;
    const cpuBefore = process.cpuUsage();
    const end = performance.now() + 1_000;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < end) {
          await one();
          count++;
        }
      }),
    );
    const cpu = process.cpuUsage(cpuBefore);
    return (cpu.user + cpu.system) / count;
  };
  const turns = families.map(turn);
  for (const one of turns) await cpuPerTurn(one);
  const perFamily: number[][] = families.map(() => []);
  for (let round = 0; round < 5; round++)
    for (const [i, one] of turns.entries()) perFamily[i]!.push(await cpuPerTurn(one));
  const [chatTurns, ...otherTurns] = perFamily.map((values) => median(values, (x) => x));
  console.log(
    `\nIn one process, 16 concurrent callers, 5 alternating rounds of 1 s, CPU per turn (JSON, stored): Chat Completions ${chatTurns!.toFixed(0)} µs, ${otherTurns
      .map(
        (cpu, i) =>
          `${families[i + 1]!.name} ${cpu.toFixed(0)} µs (${(cpu / chatTurns!).toFixed(2)}x, ${signed(cpu - chatTurns!)} µs)`,
      )
      .join(', ')}`,
  );
  for (const line of summary) console.log(line);
  await gateway.close();
  upstream.stop();
}

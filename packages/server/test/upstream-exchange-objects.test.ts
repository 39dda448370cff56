// What a gateway turn keeps for its whole life, its family's exchange (copied by the shared call, whatever the
// family made) and the opened first batch, is made with `new`, never kept as an object literal
// (src/models/upstream-provider.ts, Exchange and OpenedExchange): V8 tracks an
// allocation site, and may pretenure it, for literals only. While a server warmed up under V8's defaults it
// tenured these two literals, and each later streamed turn's body, callbacks and upstream reading were held by
// dead old objects across the scavenges and promoted (SSE gateway turns over HTTP: 5.8 KB a request into the old
// generation instead of 2.1-2.3 KB; metrics on tipped the opened batch's site too).
import { afterEach, expect, test, vi } from 'vitest';
import { ChatCompletionsProvider, createResponsesService } from '../src/index.js';
import { UpstreamModelProvider } from '../src/models/upstream-provider.js';
import { serveTurn } from './upstream-fuzz.js';

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const streamedAnswer = () =>
  new Response(`${chunk({ role: 'assistant', content: 'Hi' })}${chunk({}, 'stop')}data: [DONE]\n\n`, {
    headers: { 'content-type': 'text/event-stream' },
  });
const whole = () =>
  Response.json({
    id: 'c',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });

afterEach(() => {
  vi.restoreAllMocks();
});

/** What a family prepared, what `open` kept for a streamed answer, and what opening answered, for one turn. */
async function keptFor(
  stream: boolean,
): Promise<{ prepared: object; streamedWith: object | undefined; opened: object }> {
  const kept: { prepared?: object; streamedWith?: object; opened?: object } = {};
  // `open` and `streamed` are the shared call's private steps: watched from outside, as nothing else hands out
  // these objects.
  const prototype = UpstreamModelProvider.prototype as unknown as {
    open(request: unknown, prepare: () => Promise<object> | object): Promise<object>;
    streamed(request: unknown, exchange: object): unknown;
  };
  const { open, streamed: streamedParts } = prototype;
  vi.spyOn(prototype, 'open').mockImplementation(function (this: unknown, request, prepare) {
    const watched = async () => (kept.prepared = await prepare());
    return open.call(this, request, watched).then((opened) => (kept.opened = opened));
  });
  vi.spyOn(prototype, 'streamed').mockImplementation(function (this: unknown, request, exchange) {
    kept.streamedWith = exchange;
    return streamedParts.call(this, request, exchange);
  });
  const service = createResponsesService({
    providers: [
      new ChatCompletionsProvider({
        baseUrl: 'http://upstream.invalid/v1',
        fetch: async () => (stream ? streamedAnswer() : whole()),
      }),
    ],
  });
  const served = await serveTurn(service, { model: 'gpt-test', input: 'Hello', stream });
  expect(served.status).toBe(200);
  return kept as { prepared: object; streamedWith: object | undefined; opened: object };
}

test('a streamed turn keeps a class instance of its exchange, not the literal its family made', async () => {
  const { prepared, streamedWith } = await keptFor(true);
  expect(streamedWith).toBeDefined();
  expect(streamedWith).not.toBe(prepared);
  expect(Object.getPrototypeOf(streamedWith)).not.toBe(Object.prototype);
  expect(streamedWith).toMatchObject({ url: (prepared as { url: string }).url, stream: true });
});

test.each([true, false])('stream %s: the opened batch is a class instance', async (stream) => {
  const { opened } = await keptFor(stream);
  expect(Object.getPrototypeOf(opened)).not.toBe(Object.prototype);
});

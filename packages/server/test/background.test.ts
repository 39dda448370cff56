// Background responses on one server (the Redis package runs them across two processes): background:
// true answers at once and runs on, GET polls it, POST …/cancel stops it for good, a streaming client
// that leaves does not stop it, and what cannot be done (resuming a stream, background without store)
// is refused with a clear error.
import { decodeSSE } from '@openresponses/events';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, post, startTestServer } from './harness.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startTestServer({ backgroundPollMs: 50 });
});
afterAll(() => server.close());

const MODEL = 'openresponses-deterministic';
/** The fields these tests read from a response body. */
type ResponseBody = { id: string; status: string; error?: unknown; [field: string]: unknown };
const get = async (path: string) => {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  return { status: response.status, body: (await response.json()) as ResponseBody };
};
const poll = async (id: string, until: (status: string) => boolean) => {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { body } = await get(`/v1/responses/${id}`);
    if (until(body.status) || Date.now() > deadline) return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('background responses', () => {
  test('answer at once with the running response, then run on until GET finds it completed', async () => {
    const response = await post(server, '/v1/responses', {
      model: MODEL,
      input: 'Hello there [slow]',
      background: true,
    });
    const body = (await response.json()) as ResponseBody;
    expect(response.status).toBe(200);
    // Answered before the turn ran (work, not time: a wall-clock bound measured the machine's load).
    expect(body).toMatchObject({ status: 'in_progress', background: true, output: [] });
    const done = await poll(body.id, (status) => status === 'completed');
    expect(done.status).toBe('completed');
    expect(done.background).toBe(true);
    expect(JSON.stringify(done.output)).toContain('You said: \\"Hello there [slow]\\".');
  });

  test('cancel stops a running response for good; cancelling again answers it unchanged', async () => {
    // Streamed, so the embedded model paces its words (25 ms each: about 2 s for this answer).
    const response = await post(server, '/v1/responses', {
      model: MODEL,
      input: `${'word '.repeat(80)}[slow]`,
      background: true,
      stream: true,
    });
    const types: string[] = [];
    let id: string | undefined;
    const events = decodeSSE(response.body!)[Symbol.asyncIterator]();
    while (!id) {
      const { value } = await events.next();
      types.push(value.type);
      if (value.type === 'response.created') id = (value as { response: { id: string } }).response.id;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const cancelled = await post(server, `/v1/responses/${id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ id, status: 'cancelled', background: true });
    for (let next = await events.next(); !next.done; next = await events.next()) types.push(next.value.type);
    expect(types).not.toContain('response.completed');
    // Long enough for the answer to have finished, had it not been stopped.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await get(`/v1/responses/${id}`)).body.status).toBe('cancelled');
    const again = await post(server, `/v1/responses/${id}/cancel`, {});
    expect(await again.json()).toMatchObject({ id, status: 'cancelled' });
  });

  test('a completed response is answered unchanged by cancel; a foreground one cannot be cancelled', async () => {
    const background = (await (
      await post(server, '/v1/responses', { model: MODEL, input: 'quick', background: true })
    ).json()) as { id: string };
    await poll(background.id, (status) => status === 'completed');
    const cancel = await post(server, `/v1/responses/${background.id}/cancel`, {});
    expect(await cancel.json()).toMatchObject({ status: 'completed' });

    const foreground = (await (await post(server, '/v1/responses', { model: MODEL, input: 'hi' })).json()) as {
      id: string;
    };
    const refused = await post(server, `/v1/responses/${foreground.id}/cancel`, {});
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { type: 'invalid_request', param: 'response_id' } });
    const missing = await post(server, '/v1/responses/resp_nope/cancel', {});
    expect(missing.status).toBe(404);
  });

  test('a streaming client that leaves does not stop a background response', async () => {
    const controller = new AbortController();
    const response = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        input: 'One two three four five six [slow]',
        background: true,
        stream: true,
      }),
      signal: controller.signal,
    });
    let id: string | undefined;
    for await (const event of decodeSSE(response.body!)) {
      if (event.type === 'response.created') id = (event as { response: { id: string } }).response.id;
      if (event.type === 'response.output_text.delta') break;
    }
    controller.abort();
    expect(id).toBeDefined();
    const done = await poll(id!, (status) => status === 'completed');
    expect(done.status).toBe('completed');
    expect(JSON.stringify(done.output)).toContain('One two three four five six');
  });

  test('what cannot be done is refused: background without store, resuming a stream', async () => {
    const refused = await post(server, '/v1/responses', { model: MODEL, input: 'x', background: true, store: false });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { type: 'invalid_request', param: 'background' } });
    const created = (await (await post(server, '/v1/responses', { model: MODEL, input: 'x' })).json()) as {
      id: string;
    };
    const resumed = await get(`/v1/responses/${created.id}?stream=true&starting_after=3`);
    expect(resumed.status).toBe(400);
    expect(resumed.body.error).toMatchObject({ code: 'unsupported_parameter', param: 'stream' });
  });
});

// Background responses at a tenant's limits (issue 23 item 6): cancels and reads take no turn slot, so a
// key whose slots are all held by its own background turns can still cancel each one; every background
// turn has an overall deadline, even one whose provider never sends a part.
import { decodeSSE } from '@openresponses/events';
import type { ResponseResource } from '@openresponses/types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ModelPart, ModelProvider, ModelRequest } from '../src/models/provider.js';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, post, startTestServer } from './harness.js';

/** Sends a first delta (or nothing, for `silent`) and then nothing more until the turn is cancelled. */
class NeverFinishing implements ModelProvider {
  readonly name = 'never-finishing';
  readonly contextWindow = 100_000;
  supports(model: string) {
    return model === 'never' || model === 'silent';
  }
  async *generate(request: ModelRequest): AsyncIterable<ModelPart> {
    const cancelled = new Promise<void>((resolve) => request.onCancel?.(resolve));
    if (request.model === 'never') {
      yield { type: 'text-start', id: 't' };
      yield { type: 'text-delta', id: 't', delta: 'working' };
    }
    await cancelled;
    throw new Error('aborted by the gateway');
  }
}

const SLOTS = 3;
let server: RunningServer;
let quick: RunningServer;
beforeAll(async () => {
  server = await startTestServer({
    providers: [new NeverFinishing()],
    limits: { maxTurnsInFlightPerKey: SLOTS },
    backgroundPollMs: 50,
  });
  quick = await startTestServer({ providers: [new NeverFinishing()], limits: { maxBackgroundTurnMs: 300 } });
});
afterAll(async () => {
  await server.close();
  await quick.close();
});

const request = (target: RunningServer, method: string, path: string) =>
  fetch(`${target.url}${path}`, { method, headers: { authorization: `Bearer ${API_KEY}` } });
const poll = async (target: RunningServer, id: string, until: (status: string) => boolean) => {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const body = (await (await request(target, 'GET', `/v1/responses/${id}`)).json()) as ResponseResource;
    if (until(body.status) || Date.now() > deadline) return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('a key at its turn limit', () => {
  test('can read and cancel each of its background turns', async () => {
    const streams: Array<{ id: string; rest: Promise<string[]> }> = [];
    for (let i = 0; i < SLOTS; i++) {
      const answer = await post(server, '/v1/responses', {
        model: 'never',
        input: 'hi',
        background: true,
        stream: true,
      });
      expect(answer.status).toBe(200);
      const events = decodeSSE(answer.body!)[Symbol.asyncIterator]();
      const first = (await events.next()).value as { type: string; response: ResponseResource };
      expect(first.type).toBe('response.created');
      const rest = (async () => {
        const types: string[] = [];
        for (let next = await events.next(); !next.done; next = await events.next()) types.push(next.value.type);
        return types;
      })();
      streams.push({ id: first.response.id, rest });
    }
    // Every slot is held: another turn is refused.
    const refused = await post(server, '/v1/responses', { model: 'never', input: 'hi', background: true });
    expect(refused.status).toBe(429);
    await refused.body?.cancel();

    for (const { id } of streams) {
      const read = await request(server, 'GET', `/v1/responses/${id}`);
      expect(read.status).toBe(200);
      await read.body?.cancel();
      const items = await request(server, 'GET', `/v1/responses/${id}/input_items`);
      expect(items.status).toBe(200);
      await items.body?.cancel();
    }
    for (const { id } of streams) {
      const cancelled = await request(server, 'POST', `/v1/responses/${id}/cancel`);
      const body = (await cancelled.json()) as ResponseResource;
      expect([cancelled.status, body.status]).toEqual([200, 'cancelled']);
    }
    for (const { id, rest } of streams) {
      expect(await rest).toContain('response.failed');
      expect((await poll(server, id, (status) => status !== 'in_progress')).status).toBe('cancelled');
    }
    // The slots are free again.
    const again = await post(server, '/v1/responses', { model: 'never', input: 'hi', background: true });
    const body = (await again.json()) as ResponseResource;
    expect(again.status).toBe(200);
    expect((await (await request(server, 'POST', `/v1/responses/${body.id}/cancel`)).json()).status).toBe('cancelled');
  });
});

describe('the background deadline (limits.maxBackgroundTurnMs)', () => {
  test('stops a turn that never finishes and stores it failed', async () => {
    const answer = await post(quick, '/v1/responses', { model: 'never', input: 'hi', background: true });
    const started = (await answer.json()) as ResponseResource;
    expect([answer.status, started.status]).toEqual([200, 'in_progress']);
    const done = await poll(quick, started.id, (status) => status !== 'in_progress');
    expect([done.status, done.error?.code]).toEqual(['failed', 'background_deadline']);
  });

  test('stops a turn whose provider never sends a part', async () => {
    const answer = await post(quick, '/v1/responses', { model: 'silent', input: 'hi', background: true });
    const started = (await answer.json()) as ResponseResource;
    expect(answer.status).toBe(200);
    const done = await poll(quick, started.id, (status) => status !== 'in_progress');
    expect([done.status, done.error?.code]).toEqual(['failed', 'background_deadline']);
  });
});

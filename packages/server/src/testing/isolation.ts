// Tenant isolation as tests against running servers: a response is visible only to the tenant that
// created it, over HTTP and WebSocket, in every endpoint and through previous_response_id,
// item_reference and compaction. Any deployment (one instance or several on a shared store) can run it.
import type { TestFramework } from './framework.js';
import WebSocket from 'ws';

/** The servers `describeTenantIsolation` tests: one instance or several on a shared store. */
export interface IsolationTarget {
  /** Base URLs of the instances (`http://127.0.0.1:port`); the owner uses the first, the other tenant the last. */
  urls: string[];
  /** The owner's key and another tenant's key. */
  keys: readonly [owner: string, other: string];
}

const MODEL = 'openresponses-deterministic';
/** A JSON payload read loosely: the assertions check its shape. */
// biome-ignore lint/suspicious/noExplicitAny: test payloads are navigated freely and checked by expect.
type Payload = Record<string, any>;

async function call(url: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as Payload };
}

/** One WebSocket `response.create` turn; answers the terminal event or the error envelope. */
export async function socketTurn(url: string, key: string, body: Record<string, unknown>): Promise<Payload> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/responses`, {
    headers: { authorization: `Bearer ${key}` },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return await new Promise<Payload>((resolve, reject) => {
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as Payload;
        if (message.type === 'error' && 'status' in message) resolve(message);
        if (['response.completed', 'response.failed', 'response.incomplete'].includes(message.type)) resolve(message);
      });
      socket.once('close', () => reject(new Error('socket closed before the turn ended')));
      socket.send(JSON.stringify({ type: 'response.create', model: MODEL, ...body }));
    });
  } finally {
    socket.close();
  }
}

/**
 * Registers the isolation tests with your test framework's `describe`, `test` and `expect`; `target()`
 * answers the running servers (started in your `beforeAll`).
 */
export function describeTenantIsolation(
  name: string,
  target: () => IsolationTarget,
  { describe, test, expect }: TestFramework,
): void {
  const notFound = (result: { status: number; body: Payload }, code: string) => {
    expect(result.status).toBe(404);
    expect(result.body.error).toMatchObject({ type: 'not_found', code });
  };
  describe(`${name}: tenant isolation`, () => {
    test('over HTTP another tenant cannot read, list, delete, continue, reference or compact a response', async () => {
      const { urls, keys } = target();
      const [mine, theirs] = [urls[0]!, urls.at(-1)!];
      const [owner, other] = keys;
      const created = await call(mine, owner, 'POST', '/responses', { model: MODEL, input: 'My name is Ada.' });
      expect(created.status).toBe(200);
      const id = created.body.id as string;
      const listed = await call(mine, owner, 'GET', `/responses/${id}/input_items`);
      expect(listed.status).toBe(200);
      const inputItem = listed.body.data[0].id as string;

      notFound(await call(theirs, other, 'GET', `/responses/${id}`), 'response_not_found');
      notFound(await call(theirs, other, 'GET', `/responses/${id}/input_items`), 'response_not_found');
      notFound(await call(theirs, other, 'DELETE', `/responses/${id}`), 'response_not_found');
      const continued = await call(theirs, other, 'POST', '/responses', {
        model: MODEL,
        previous_response_id: id,
        input: 'What is my name?',
      });
      notFound(continued, 'previous_response_not_found');
      expect(continued.body.error.param).toBe('previous_response_id');
      const referenced = await call(theirs, other, 'POST', '/responses', {
        model: MODEL,
        input: [{ type: 'item_reference', id: inputItem }],
      });
      notFound(referenced, 'item_not_found');
      const compacted = await call(theirs, other, 'POST', '/responses/compact', {
        model: MODEL,
        previous_response_id: id,
      });
      notFound(compacted, 'previous_response_not_found');

      // The owner still has all of it.
      expect((await call(theirs, owner, 'GET', `/responses/${id}`)).body.id).toBe(id);
      const recalled = await call(theirs, owner, 'POST', '/responses', {
        model: MODEL,
        previous_response_id: id,
        input: 'What is my name?',
      });
      expect(recalled.status).toBe(200);
      expect(JSON.stringify(recalled.body.output)).toContain('Your name is Ada.');
      expect((await call(mine, owner, 'DELETE', `/responses/${id}`)).status).toBe(200);
    });

    test("another tenant storing an item with the same client-given id does not take the owner's item_reference", async () => {
      const { urls, keys } = target();
      const [mine, theirs] = [urls[0]!, urls.at(-1)!];
      const [owner, other] = keys;
      const itemId = `msg_shared_${Math.random().toString(36).slice(2)}`;
      const say = (text: string) => [
        { type: 'message', id: itemId, role: 'user', content: [{ type: 'input_text', text }] },
      ];
      expect(
        (await call(mine, owner, 'POST', '/responses', { model: MODEL, input: say('My name is Ada.') })).status,
      ).toBe(200);
      const squatted = await call(theirs, other, 'POST', '/responses', { model: MODEL, input: say('My name is Eve.') });
      expect(squatted.status).toBe(200);

      const recall = async (url: string, key: string) => {
        const answer = await call(url, key, 'POST', '/responses', {
          model: MODEL,
          input: [
            { type: 'item_reference', id: itemId },
            { role: 'user', content: 'What is my name?' },
          ],
        });
        expect(answer.status).toBe(200);
        return JSON.stringify(answer.body.output);
      };
      expect(await recall(theirs, owner)).toContain('Your name is Ada.');
      expect(await recall(mine, other)).toContain('Your name is Eve.');
      // Deleting the other tenant's response leaves the owner's item where it was.
      expect((await call(theirs, other, 'DELETE', `/responses/${squatted.body.id}`)).status).toBe(200);
      expect(await recall(mine, owner)).toContain('Your name is Ada.');
    });

    test('over WebSocket another tenant cannot continue from or reference a response, and sees none it made', async () => {
      const { urls, keys } = target();
      const [mine, theirs] = [urls[0]!, urls.at(-1)!];
      const [owner, other] = keys;
      const made = await socketTurn(mine, owner, { input: 'My name is Grace.' });
      expect(made.type).toBe('response.completed');
      const id = made.response.id as string;
      const inputItems = await call(mine, owner, 'GET', `/responses/${id}/input_items`);
      const inputItem = inputItems.body.data[0].id as string;

      const continued = await socketTurn(theirs, other, { previous_response_id: id, input: 'What is my name?' });
      expect(continued).toMatchObject({ type: 'error', status: 404, error: { type: 'not_found' } });
      const referenced = await socketTurn(theirs, other, { input: [{ type: 'item_reference', id: inputItem }] });
      expect(referenced).toMatchObject({
        type: 'error',
        status: 404,
        error: { type: 'not_found', code: 'item_not_found' },
      });
      notFound(await call(theirs, other, 'GET', `/responses/${id}`), 'response_not_found');

      const recalled = await socketTurn(theirs, owner, { previous_response_id: id, input: 'What is my name?' });
      expect(recalled.type).toBe('response.completed');
      expect(JSON.stringify(recalled.response.output)).toContain('Your name is Grace.');
    });
  });
}

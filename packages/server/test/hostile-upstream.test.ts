// The hostile upstream (issue 23): what each behaviour sends, then the gateway (the real CLI process) in
// front of it.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HOSTILE_BEHAVIOURS, type HostileUpstream, startHostileUpstream } from '../src/testing/index.js';

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
    expect([limited.status, limited.headers.get('retry-after')!.length, limited.headers.get('retry-after-ms')]).toEqual([
      429, 12 * 1024, '-5000',
    ]);
    const calls = await (await post('many-tool-calls', { stream: true })).text();
    expect(calls.match(/"id":"call_\d+"/g)).toHaveLength(50);
    await expect(post('cut-json-answer', {}).then((r) => r.text())).rejects.toThrow();
  });

  test('endless behaviours stop at maxBytes or when the client leaves, and no connection stays open', async () => {
    for (const name of ['endless-sse-line', 'endless-json-body', 'endless-deltas', 'logprob-flood', 'endless-tool-name']) {
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
});

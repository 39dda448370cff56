// encrypted_content is real encryption: AES-256-GCM under a configured key with a key id. Only sent when
// included; unreadable without the key; sent back it is verified, and tampered, foreign or garbage content
// is a 400 naming the item. A server with a rotated key list still opens what the old key sealed.
import type { ResponseResource } from '@openresponses/types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateEncryptionKey } from '../src/index.js';
import { createSealer, parseEncryptionKeys, sealerFor, UnsealError } from '../src/responses/sealed.js';
import type { RunningServer } from '../src/node/index.js';
import { post, startTestServer } from './harness.js';

const oldKey = generateEncryptionKey('old');
const newKey = generateEncryptionKey('new');
let before: RunningServer;
let after: RunningServer;
let stranger: RunningServer;
beforeAll(async () => {
  before = await startTestServer({ encryptionKeys: [oldKey] });
  after = await startTestServer({ encryptionKeys: [newKey, oldKey] });
  stranger = await startTestServer({ encryptionKeys: [generateEncryptionKey('old')] });
});
afterAll(() => Promise.all([before.close(), after.close(), stranger.close()]));

const think = (include?: string[]) => ({
  input: 'My favorite city is Rome. [think]',
  reasoning: { effort: 'low', summary: 'auto' },
  ...(include ? { include } : {}),
});
const reasoningOf = async (server: RunningServer, body: Record<string, unknown>) => {
  const response = (await (await post(server, '/v1/responses', body)).json()) as ResponseResource;
  return response.output.find((i) => i.type === 'reasoning') as Record<string, unknown> & {
    encrypted_content?: string;
    status?: string;
  };
};
const replay = (server: RunningServer, encrypted_content: unknown) =>
  post(server, '/v1/responses', {
    input: [
      { role: 'user', content: 'My favorite city is Rome.' },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content },
      { role: 'user', content: 'What is my favorite city?' },
    ],
  });

describe('encrypted_content', () => {
  test('is sent only when included, and reasoning items carry a status', async () => {
    const plain = await reasoningOf(before, think());
    expect(plain.status).toBe('completed');
    expect(plain).not.toHaveProperty('encrypted_content');
    const included = await reasoningOf(before, think(['reasoning.encrypted_content']));
    expect(included.encrypted_content).toMatch(/^or3\.old\.[A-Za-z0-9_-]+$/);
  });

  test('cannot be read without the key', async () => {
    const { encrypted_content } = await reasoningOf(before, think(['reasoning.encrypted_content']));
    const bytes = atob(encrypted_content!.split('.')[2]!.replace(/-/g, '+').replace(/_/g, '/'));
    expect(bytes).not.toContain('Rome');
    expect(bytes).not.toContain('summary');
  });

  test('round-trips, also through a server whose current key has rotated', async () => {
    const { encrypted_content } = await reasoningOf(before, think(['reasoning.encrypted_content']));
    expect((await replay(before, encrypted_content)).status).toBe(200);
    expect((await replay(after, encrypted_content)).status).toBe(200);
  });

  test.each([
    [
      'tampered',
      (text: string) => `${text.slice(0, -6)}${text.slice(-6) === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA'}`,
      /altered/,
    ],
    ['from an unknown key', (text: string) => text.replace('or3.old.', 'or3.gone.'), /key 'gone'/],
    ['garbage', () => 'not-ours', /not content this server encrypted/],
    ['the HMAC-signed format of earlier versions', () => 'or1.eyJ4IjoxfQ.c2ln', /not content this server encrypted/],
  ])('%s content is a 400 naming the item', async (_name, alter, reason) => {
    const { encrypted_content } = await reasoningOf(before, think(['reasoning.encrypted_content']));
    const response = await replay(before, alter(encrypted_content!));
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: Record<string, string> };
    expect(error).toMatchObject({
      type: 'invalid_request',
      code: 'invalid_encrypted_content',
      param: 'input[1].encrypted_content',
    });
    expect(error.message).toMatch(reason);
  });

  test('content from another server with a key of the same id is refused as altered', async () => {
    const { encrypted_content } = await reasoningOf(stranger, think(['reasoning.encrypted_content']));
    const response = await replay(before, encrypted_content);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/altered/);
  });

  test('a compaction window cannot be replayed as reasoning (the purpose is authenticated)', async () => {
    const sealer = createSealer([oldKey]);
    const window = await sealer.seal([{ type: 'message', role: 'user', content: [] }], 'compaction');
    await expect(sealer.open(window, 'reasoning')).rejects.toBeInstanceOf(UnsealError);
    expect((await replay(before, window)).status).toBe(400);
  });

  test('payloads of any size round-trip (base64url in chunks, checked against Node’s own codec)', async () => {
    const sealer = createSealer([oldKey]);
    // Around and across the 24,576-byte encoding chunks, with multi-byte characters.
    for (const length of [0, 1, 2, 24_540, 24_541, 24_542, 24_576, 49_152, 100_003]) {
      const payload = { text: 'é'.repeat(length % 7) + 'x'.repeat(length) };
      const sealed = await sealer.seal(payload, 'compaction');
      const body = sealed.split('.')[2]!;
      expect(body).toMatch(/^[A-Za-z0-9_-]*$/);
      // iv (12) + ciphertext (the plaintext's length) + tag (16), decoded by Buffer, not by the sealer.
      expect(Buffer.from(body, 'base64url').byteLength).toBe(12 + Buffer.byteLength(JSON.stringify(payload)) + 16);
      expect(await sealer.open(sealed, 'compaction')).toEqual(payload);
      // Std base64 with padding is read too (Buffer writes it).
      const standard = `or3.old.${Buffer.from(body, 'base64url').toString('base64')}`;
      expect(await sealer.open(standard, 'compaction')).toEqual(payload);
    }
    await expect(sealer.open('or3.old.AAAAA', 'compaction')).rejects.toMatchObject({ reason: 'malformed' });
  });

  test('sealed content is bound to its owner: another tenant, or no tenant, cannot open it; the or2 format before owners is refused', async () => {
    const sealer = createSealer([oldKey]);
    const sealed = await sealerFor(sealer, 'key_tenant_a').seal({ secret: 'plan' }, 'reasoning');
    expect(await sealerFor(sealer, 'key_tenant_a').open(sealed, 'reasoning')).toEqual({ secret: 'plan' });
    for (const open of [
      () => sealerFor(sealer, 'key_tenant_b').open(sealed, 'reasoning'),
      () => sealer.open(sealed, 'reasoning'),
      () => sealerFor(sealer, 'key_tenant_a').open(sealed, 'compaction'),
    ])
      await expect(open()).rejects.toMatchObject({ reason: 'tampered', message: /another tenant or purpose/ });
    // The same bytes under the earlier version's name: recognised, and refused with the reason.
    await expect(sealer.open(sealed.replace(/^or3\./, 'or2.'), 'reasoning', 'key_tenant_a')).rejects.toMatchObject({
      reason: 'unbound',
      message: /before sealed content was bound to its owner/,
    });
  });

  test('keys are parsed from configuration and checked', () => {
    expect(parseEncryptionKeys(`a:${oldKey.key}, b:${newKey.key}`).map((k) => k.id)).toEqual(['a', 'b']);
    expect(() => parseEncryptionKeys('no-colon')).toThrow(/id:base64key/);
    expect(() => createSealer([{ id: 'short', key: 'AAAA' }])).toThrow(/32 bytes/);
    expect(() => createSealer([{ id: 'bad id', key: oldKey.key }])).toThrow(/letters, digits/);
  });
});

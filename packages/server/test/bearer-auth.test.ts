// The bearer key check of HTTP requests: which key a header carries (every near miss refused), and the
// constant-time comparison it rests on (code unit by code unit, no encoding per request).
import { expect, test } from 'vitest';
import { bearerAuthenticator, constantTimeEqual } from '../src/handler/authentication.js';

test('constantTimeEqual is equality, whatever the lengths and characters', () => {
  const samples = [
    '',
    'a',
    'b',
    'ab',
    'ba',
    'abc',
    'key-0123',
    'key-0124',
    'kéy-0123',
    'key-😀',
    'key-😁',
    'key-\u0000',
  ];
  for (const a of samples) for (const b of samples) expect(constantTimeEqual(a, b), `${a} / ${b}`).toBe(a === b);
});

test('a header names the tenant of the key it carries, and nothing for a near miss', async () => {
  const keys = ['key-of-a-0123', 'key-of-b-4567', 'ключ-😀'];
  const auth = bearerAuthenticator(keys, { 'key-of-a-0123': 'tenant-a', 'ключ-😀': 'tenant-c' });
  expect(auth.open).toBe(false);
  expect(await auth.ownerOf('Bearer key-of-a-0123')).toBe('tenant-a');
  expect(await auth.ownerOf('bearer   key-of-a-0123  ')).toBe('tenant-a');
  expect(await auth.ownerOf('Bearer ключ-😀')).toBe('tenant-c');
  // A key without a configured tenant is named by its digest, never by the key.
  const b = await auth.ownerOf('Bearer key-of-b-4567');
  expect(b).toMatch(/^key_[0-9a-f]{32}$/);
  expect(b).not.toContain('4567');
  for (const header of [
    null,
    '',
    'Bearer',
    'Bearer ',
    'key-of-a-0123',
    'Basic key-of-a-0123',
    'Bearer key-of-a-012',
    'Bearer key-of-a-01234',
    'Bearer key-of-a-0124',
    'Bearer Key-of-a-0123',
    'Bearer ключ-😁',
  ])
    expect(await auth.ownerOf(header), String(header)).toBeUndefined();
});

test('without keys every request is the open tenant', async () => {
  const auth = bearerAuthenticator([]);
  expect(auth.open).toBe(true);
  expect(await auth.ownerOf(null)).toBe('open');
});

test('a key given on the command line is told at once, without a promise, once its tenant is named', async () => {
  const auth = bearerAuthenticator(['key-of-a-0123'], { 'key-of-a-0123': 'tenant-a' });
  expect(await auth.ownerOf('Bearer key-of-a-0123')).toBe('tenant-a');
  expect(auth.ownerOf('Bearer key-of-a-0123')).toBe('tenant-a');
  expect(auth.ownerOf('Bearer key-of-a-0124')).toBeUndefined();
});

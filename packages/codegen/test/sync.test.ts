// spec:sync on a scratch repository: local copies, downloads (from a real HTTP server on 127.0.0.1),
// and clear failures for a missing source or a hash mismatch.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SpecSyncError, sha256Of, syncSpecs, syncedDocumentPath } from '../src/index.js';

const documentBytes = Buffer.from(
  JSON.stringify({ openapi: '3.1.0', info: { title: 'fixture', version: '2099-01-01' } }),
);
const goodHash = sha256Of(documentBytes);
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/ok/openapi.json') res.end(documentBytes);
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  baseUrl = `http://127.0.0.1:${address.port}`;
});
const scratchRoots: string[] = [];
afterAll(async () => {
  for (const root of scratchRoots) rmSync(root, { recursive: true, force: true });
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function scratchRepo(entry: { url: string; sha256: string }, local?: Buffer) {
  const root = mkdtempSync(path.join(tmpdir(), 'spec-sync-'));
  scratchRoots.push(root);
  mkdirSync(path.join(root, 'openapi'));
  writeFileSync(
    path.join(root, 'openapi', 'manifest.json'),
    JSON.stringify({ latest: '2099-01-01', versions: [{ version: '2099-01-01', ...entry }] }),
  );
  const shared = path.join(root, 'shared-openapi');
  if (local) {
    mkdirSync(path.join(shared, '2099-01-01'), { recursive: true });
    writeFileSync(path.join(shared, '2099-01-01', 'openapi.json'), local);
  }
  return { root, shared };
}

describe('spec sync', () => {
  test('copies a local document and verifies it; a second run is a no-op', async () => {
    const { root, shared } = scratchRepo({ url: `${baseUrl}/missing/openapi.json`, sha256: goodHash }, documentBytes);
    expect((await syncSpecs({ repoRoot: root, localSource: shared }))[0]!.from).toBe('local');
    expect(readFileSync(syncedDocumentPath(root, '2099-01-01'))).toEqual(documentBytes);
    expect((await syncSpecs({ repoRoot: root, localSource: shared }))[0]!.from).toBe('cache');
  });

  test('downloads the upstream URL when there is no local copy', async () => {
    const { root, shared } = scratchRepo({ url: `${baseUrl}/ok/openapi.json`, sha256: goodHash });
    expect((await syncSpecs({ repoRoot: root, localSource: shared }))[0]!.from).toBe('download');
  });

  test('a hash mismatch names the version and both hashes, and writes nothing', async () => {
    const wrong = 'f'.repeat(64);
    const { root, shared } = scratchRepo({ url: `${baseUrl}/ok/openapi.json`, sha256: wrong }, documentBytes);
    const error = await syncSpecs({ repoRoot: root, localSource: shared }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpecSyncError);
    expect((error as Error).message).toContain('Spec 2099-01-01: sha256 mismatch');
    expect((error as Error).message).toContain(`expected ${wrong}`);
    expect((error as Error).message).toContain(`actual   ${goodHash}`);
    expect(() => readFileSync(syncedDocumentPath(root, '2099-01-01'))).toThrow();
  });

  test('a missing source names the version and the URL', async () => {
    const { root, shared } = scratchRepo({ url: `${baseUrl}/missing/openapi.json`, sha256: goodHash });
    await expect(syncSpecs({ repoRoot: root, localSource: shared })).rejects.toThrow(
      /Spec 2099-01-01: no local copy and .*missing\/openapi.json answered HTTP 404/,
    );
  });
});

test('the generator loads openapi-typescript only to generate: the spec tools that only sync, add or diff start without it', () => {
  // The index from its sources, as scripts/ import it, under a resolve hook that refuses openapi-typescript.
  const refuse = `export async function resolve(specifier, context, next) {
    if (specifier === 'openapi-typescript') throw new Error('openapi-typescript was loaded');
    return next(specifier, context);
  }`;
  const hooks = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(refuse)}`)});`;
  const index = fileURLToPath(new URL('../src/index.ts', import.meta.url));
  const exported = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      `data:text/javascript,${encodeURIComponent(hooks)}`,
      '--input-type=module',
      '-e',
      `const codegen = await import(${JSON.stringify(index)}); console.log(Object.keys(codegen).sort().join(' '));`,
    ],
    { encoding: 'utf8' },
  );
  expect(exported.trim().split(' ')).toEqual(
    expect.arrayContaining(['addSpecVersion', 'diffSpecs', 'generateAll', 'syncSpecs']),
  );
});

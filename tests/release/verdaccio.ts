// A real Verdaccio registry for the release test, in this process, on 127.0.0.1 with a port the system picks
// and its storage, users and configuration in a temporary folder. It has no uplinks: it serves what was
// published to it and nothing else, so a test that points npm at it cannot reach the public registry for
// our packages.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runServer } from 'verdaccio';

export interface LocalRegistry {
  /** e.g. `http://127.0.0.1:41234/` */
  url: string;
  /** A token for a user created on it, for `//host:port/:_authToken`. */
  token: string;
  /** The `.npmrc` line that authenticates against it. */
  authLine: string;
  close(): Promise<void>;
}

export async function startLocalRegistry(scope: string): Promise<LocalRegistry> {
  const folder = mkdtempSync(path.join(tmpdir(), 'openresponses-verdaccio-'));
  const server = (await runServer({
    self_path: folder,
    storage: path.join(folder, 'storage'),
    auth: { htpasswd: { file: path.join(folder, 'htpasswd'), max_users: 10 } },
    uplinks: {},
    packages: {
      [`${scope}/*`]: { access: '$all', publish: '$authenticated', unpublish: '$authenticated' },
      '**': { access: '$all', publish: '$authenticated' },
    },
    web: { enable: false },
    log: { type: 'stdout', format: 'pretty', level: 'error' },
    max_body_size: '50mb',
    // biome-ignore lint/suspicious/noExplicitAny: Verdaccio's ConfigYaml type requires fields its defaults fill in.
  } as any)) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/`;
  const response = await fetch(`${url}-/user/org.couchdb.user:release-test`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'release-test', password: 'release-test-password', type: 'user', roles: [] }),
  });
  const { token } = (await response.json()) as { token?: string };
  if (!response.ok || !token) throw new Error(`Verdaccio did not create a user: HTTP ${response.status}`);
  return {
    url,
    token,
    authLine: `//127.0.0.1:${port}/:_authToken=${token}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

// The hostile-upstream contract (@openresponses/server/testing) run for every registered provider family,
// against the real CLI as a child process (its own RSS and CPU time), with the default limits and small ones.
// The family list comes from the routes registry: a family registered without a hostile wire fails here.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FAMILY_TYPES } from '../src/models/routes.js';
import {
  describeHostileContract,
  HOSTILE_WIRES,
  type HostileServeRequest,
  type HostileTarget,
  limitsEnv,
  REQUIRED_HOSTILE_FIELDS,
} from '../src/testing/index.js';
import { startChildServer } from './child-server.js';

const KEY = 'hostile-contract-client-key';

async function serve({ routes, limits, env }: HostileServeRequest): Promise<HostileTarget> {
  const directory = mkdtempSync(path.join(tmpdir(), 'hostile-contract-'));
  const config = path.join(directory, 'routes.json');
  writeFileSync(config, JSON.stringify({ routes }));
  const server = await startChildServer(['--port', '0', '--api-key', KEY, '--config', config], {
    ...limitsEnv(limits),
    ...env,
  }).catch((error: unknown) => {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  });
  return {
    url: server.url,
    apiKey: KEY,
    pid: server.pid,
    close: () => server.stop().finally(() => rmSync(directory, { recursive: true, force: true })),
  };
}

test('every registered provider family has a hostile wire (add yours to HOSTILE_WIRES)', () => {
  // The families shipped today, by name: the registry can grow, but none of these may leave the suite unnoticed.
  expect(FAMILY_TYPES).toEqual(
    expect.arrayContaining(['chat-completions', 'anthropic-messages', 'gemini', 'open-responses']),
  );
  expect(FAMILY_TYPES.filter((type) => !HOSTILE_WIRES[type])).toEqual([]);
  for (const type of FAMILY_TYPES)
    for (const field of REQUIRED_HOSTILE_FIELDS)
      expect(Object.keys(HOSTILE_WIRES[type]!.floods), type).toContain(field);
});

for (const type of FAMILY_TYPES) {
  const wire = HOSTILE_WIRES[type];
  if (wire) describeHostileContract(wire, { serve }, { describe, test, expect, afterAll });
}

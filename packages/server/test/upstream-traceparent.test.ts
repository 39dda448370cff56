// The traceparent a traced gateway turn sends upstream (models/upstream-call.ts, node/http-fetch.ts): turns in a
// child process (test/upstream-traceparent-cases.ts) against the real replay upstream over HTTP through
// `nodeFetch`, under the CLI's own tracer. With the default W3C propagators (and the W3C one alone, or renamed by a bundler) the header
// is written from the client span's ids and appended to the provider's header list; a provider header named
// traceparent is replaced by the call's own; with another propagator registered, what it injects for the client
// span is what the upstream gets.
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { builtScript } from './built-script.js';

interface Turn {
  name: string;
  status: number;
  w3c: boolean;
  clients: Array<{ traceId: string; spanId: string }>;
  traceparent?: string;
  tracestate?: string;
}

test('the upstream is told of the client span, through W3C propagation or the registered propagator', async () => {
  const run = spawnSync(process.execPath, [await builtScript('upstream-traceparent-cases')], {
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  const turns = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Turn);
  expect(turns.map(({ name, status, w3c }) => [name, status, w3c])).toEqual([
    ['default', 200, true],
    ['default again', 200, true],
    ['provider traceparent', 200, true],
    ['custom', 200, false],
    ['w3c alone', 200, true],
    ['w3c renamed', 200, true],
  ]);
  for (const { name, clients, traceparent, tracestate } of turns) {
    expect(clients).toHaveLength(1);
    const [{ traceId, spanId }] = clients as [{ traceId: string; spanId: string }];
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceparent).toBe(`00-${traceId}-${spanId}-${name === 'custom' ? '03' : '01'}`);
    expect(tracestate).toBeUndefined();
  }
});

// The CLI turns V8's allocation-site pretenuring off (src/node/v8-pretenuring.ts): while it serves, V8
// makes no more pretenuring decisions, which --trace-pretenuring-statistics prints at each scavenge tracking a site.
import { spawn } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { serverCli } from '../../../test-support/server-cli.js';
import { urlOf } from './cli-process.js';

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

it('makes no pretenuring decisions while it serves turns', async () => {
  const child = spawn(
    process.execPath,
    ['--trace-pretenuring-statistics', serverCli, '--port', '0', '--open', '--no-playground'],
    { env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  stops.push(() => child.kill('SIGTERM'));
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  for (let waited = 0; !output.includes('Try: curl'); waited += 50) {
    if (waited > 20_000 || child.exitCode !== null) throw new Error(`the CLI did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = `${urlOf(output)}/v1/responses`;
  const servedFrom = output.length;
  const body = JSON.stringify({ model: 'openresponses-deterministic', input: 'Hello! My name is Ada.' });
  // Enough stored turns for tens of scavenges (each would print the sites it tracked).
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = 0; i < 100; i++) {
        const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        expect(answer.status).toBe(200);
        await answer.arrayBuffer();
      }
    }),
  );
  expect(output.slice(servedFrom).match(/^.*pretenuring:.*$/m)?.[0]).toBeUndefined();
}, 60_000);

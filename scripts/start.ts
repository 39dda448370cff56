// npm start — the reference server (its CLI, on the embedded deterministic model) on 127.0.0.1, then a
// round-trip demo against it; the server keeps running until Ctrl-C. PORT, HOST, OPENRESPONSES_API_KEYS and
// the other flags and variables work as for the CLI. The demo stores its responses only when the server's
// store is its own memory: with any other store (a Redis shared by other instances) it sends `store: false`,
// so it never writes into a shared store.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { runDemo } from '@openresponses/example-round-trip-demo';
import { repoRoot } from './repo-root.js';

const cli = path.join(repoRoot, 'packages/server/src/node/cli.ts');
const server = spawn(
  process.execPath,
  ['--import', 'tsx', '--conditions=@openresponses/source', cli, ...process.argv.slice(2)],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const stop = () => server.kill('SIGTERM');
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.on('exit', (code) => process.exit(code ?? 0));

let banner = '';
server.stdout.on('data', async function onData(chunk: Buffer) {
  process.stdout.write(chunk);
  banner += chunk.toString();
  if (!banner.includes('Try: curl')) return;
  server.stdout.off('data', onData);
  server.stdout.pipe(process.stdout);
  const url = /on (http:\/\/[^\s]+)\/v1\/responses/.exec(banner)![1]!;
  const apiKey = /API key: (\S+)/.exec(banner)?.[1];
  const store = /^Store: memory \(this process only/m.test(banner);
  console.log(
    `\nRound-trip demo (${store ? "stored in this server's own memory store" : 'store: false: nothing is written into the shared store'}):`,
  );
  try {
    await runDemo({ baseURL: `${url}/v1`, apiKey, store, log: (line) => console.log(line) });
    console.log(`\nThe server keeps running on ${url} (Ctrl-C to stop).`);
  } catch (error) {
    console.error('The demo failed:', error);
    stop();
  }
});

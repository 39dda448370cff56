// The reference server's CLI as a real child process on 127.0.0.1 (sources through tsx), and a recording
// proxy in front of it, so a test sees exactly what an agent sent and got.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export const API_KEY = 'agents-test-key-0123456789';
const cli = fileURLToPath(new URL('../../packages/server/src/node/cli.ts', import.meta.url));

export interface CliServer {
  /** The API root, `http://127.0.0.1:<port>/v1` (through the recording proxy). */
  baseUrl: string;
  /** Every `/v1/responses` request body the server received, in order. */
  received: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Starts the CLI with `args` on a free port and a recording proxy in front of it. */
export async function startCliServer(args: string[]): Promise<CliServer> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@openresponses/source', cli, '--port', '0', '--api-key', API_KEY, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const target = await new Promise<URL>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the CLI did not start: ${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /on (http:\/\/127\.0\.0\.1:\d+)\/v1\/responses/.exec(output)?.[1];
      if (url && output.includes('Try: curl')) {
        clearTimeout(timer);
        resolve(new URL(url));
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`the CLI exited with ${code}: ${output}`)));
  });
  const received: Array<Record<string, unknown>> = [];
  const proxy = recordingProxy(target, received);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`,
    received,
    close: () => stop(child, proxy),
  };
}

function recordingProxy(target: URL, received: Array<Record<string, unknown>>): Server {
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (req.url?.startsWith('/v1/responses') && body.length > 0) received.push(JSON.parse(body.toString('utf8')));
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    upstream.end(body);
  });
}

async function stop(child: ChildProcess, proxy: Server): Promise<void> {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

// The reference server's CLI as a real child process on 127.0.0.1 (from the server's build:
// test-support/server-cli.ts), and a recording proxy in front of it, so a test sees exactly what an agent sent
// and got.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CONFORMANCE_WIRES,
  type ScriptedUpstream,
  startScriptedUpstream,
  type WireFamily,
} from '@openresponses/server/testing';
import { serverCli } from '../../test-support/server-cli.js';

export const API_KEY = 'agents-test-key-0123456789';

export interface CliServer {
  /** The API root, `http://127.0.0.1:<port>/v1` (through the recording proxy). */
  baseUrl: string;
  /** Every `/v1/responses` request body the server received, in order. */
  received: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Starts the CLI with `args` on a free port and a recording proxy in front of it. */
export async function startCliServer(args: string[]): Promise<CliServer> {
  const child = spawn(process.execPath, [serverCli, '--port', '0', '--api-key', API_KEY, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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

/** A gateway for one registered family: the CLI routing `via-gateway` to a scripted upstream in that family's wire. */
export interface Gateway {
  server: CliServer;
  upstream: ScriptedUpstream;
  wire: WireFamily;
  close(): Promise<void>;
}

export async function startGateway(family: string): Promise<Gateway> {
  const wire = CONFORMANCE_WIRES[family];
  if (!wire) throw new Error(`no scripted wire for the family '${family}' (CONFORMANCE_WIRES)`);
  const upstream = await startScriptedUpstream(wire);
  const folder = mkdtempSync(path.join(tmpdir(), 'agents-gateway-'));
  const config = path.join(folder, 'routes.json');
  writeFileSync(config, JSON.stringify({ routes: [{ model: 'via-gateway', type: family, url: upstream.rootUrl }] }));
  const server = await startCliServer(['--config', config]).catch(async (error: unknown) => {
    await upstream.close();
    rmSync(folder, { recursive: true, force: true });
    throw error;
  });
  return {
    server,
    upstream,
    wire,
    close: async () => {
      try {
        await server.close();
        await upstream.close();
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}

// A real Redis Cluster of three masters (Debian's redis-server with `cluster-enabled yes`), each on a free
// loopback port (and its bus port, +10000) with its own temporary directory, joined with
// `redis-cli --cluster create … --cluster-yes`, and stopped by the test. Starts in a second or two: share one per file.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './redis-server.js';

const run = promisify(execFile);

export interface RedisCluster {
  /** The masters, as ioredis's `Cluster` takes them. */
  nodes: Array<{ host: string; port: number }>;
  /** Stops every node and removes their directories. */
  dispose(): Promise<void>;
}

/** A port whose cluster bus port (+10000) is free too. */
async function clusterPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port > 55_000) continue;
    const bus = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port + 10_000, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (bus) return port;
  }
}

export async function startRedisCluster(masters = 3): Promise<RedisCluster> {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  const ports: number[] = [];
  const dispose = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
            child.once('exit', resolve);
            child.kill('SIGKILL');
          }),
      ),
    );
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      const port = await clusterPort();
      const dir = mkdtempSync(path.join(tmpdir(), 'openresponses-cluster-'));
      ports.push(port);
      dirs.push(dir);
      children.push(
        spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--dir',
            dir,
            '--save',
            '',
            '--appendonly',
            'no',
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-node-timeout',
            '2000',
            '--daemonize',
            'no',
            '--logfile',
            '',
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    for (const port of ports) await until(async () => (await cli(port, 'PING')) === 'PONG');
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const port of ports)
      await until(async () => (await cli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'));
    return { nodes: ports.map((port) => ({ host: '127.0.0.1', port })), dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

async function cli(port: number, ...args: string[]): Promise<string> {
  try {
    return (await run('redis-cli', ['-p', String(port), ...args])).stdout.trim();
  } catch {
    return '';
  }
}

async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('the Redis Cluster did not come up within 15 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

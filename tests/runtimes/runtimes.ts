// The runtimes under test, from this workspace's own devDependencies (`bun`, `deno`; workerd comes with
// `miniflare`). A missing runtime is an error, never a skip.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

export type GuestRuntime = 'node' | 'bun' | 'deno';

/** Where a package's file is, or undefined when the package is not installed. */
function installed(file: string): string | undefined {
  try {
    return require.resolve(file);
  } catch {
    return undefined;
  }
}

/**
 * The runtime's executable. npm may skip dependencies' install scripts (npm 11 asks for approval), and
 * `bun`'s and `deno`'s postinstall only copy the binary out of the platform package npm installed as an
 * optional dependency: so the platform package's binary is used when it is still there, and the main
 * package's one (put there by its postinstall) otherwise.
 */
export function runtimeBinary(runtime: GuestRuntime): string {
  if (runtime === 'node') return process.execPath;
  const arch = process.arch === 'arm64' ? (runtime === 'bun' ? 'aarch64' : 'arm64') : process.arch;
  const candidates =
    runtime === 'bun'
      ? [`@oven/bun-${process.platform}-${arch}/bin/bun`, 'bun/bin/bun.exe']
      : [`@deno/${process.platform}-${arch}${process.platform === 'linux' ? '-glibc' : ''}/deno`, 'deno/deno'];
  for (const candidate of candidates) {
    const file = installed(candidate);
    if (file && existsSync(file)) return file;
  }
  throw new Error(
    `${runtime} is not installed (looked for ${candidates.join(', ')}): it is a devDependency of tests/runtimes; run npm ci.`,
  );
}

/** The command line that runs `guest/main.mjs` of the scratch project in a runtime. */
export interface GuestOptions {
  /** Deno only: grant environment access (the web-standard packages run without it). */
  allowEnv?: boolean;
}

function guestArgs(runtime: GuestRuntime, consumer: string, args: string[], options: GuestOptions): string[] {
  const main = path.join(consumer, 'guest/main.mjs');
  if (runtime === 'deno')
    // Deno finds the project's package.json and resolves packages from its node_modules.
    return [
      'run',
      `--allow-read=${consumer}`,
      '--allow-net=127.0.0.1',
      ...(options.allowEnv ? ['--allow-env'] : []),
      '--no-prompt',
      main,
      ...args,
    ];
  return [main, ...args];
}

const guestEnv = { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DO_NOT_TRACK: '1' };

/** Runs one guest command to completion and returns the JSON it printed. */
export async function runGuest(
  runtime: GuestRuntime,
  consumer: string,
  args: string[],
  options: GuestOptions = {},
): Promise<unknown> {
  try {
    const { stdout } = await run(runtimeBinary(runtime), guestArgs(runtime, consumer, args, options), {
      cwd: consumer,
      env: guestEnv,
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(stdout.trim().split('\n').at(-1)!);
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`${runtime} ${args[0]} failed${stderr ? `:\n${stderr}` : ''}`, { cause: error });
  }
}

export interface GuestServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts `guest/main.mjs serve` in a runtime and waits for the URL it prints. */
export async function startGuestServer(runtime: GuestRuntime, consumer: string, apiKey: string): Promise<GuestServer> {
  const child = spawn(runtimeBinary(runtime), guestArgs(runtime, consumer, ['serve', apiKey], {}), {
    cwd: consumer,
    env: guestEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${runtime} serve exited with ${code}:\n${stderr}`)));
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

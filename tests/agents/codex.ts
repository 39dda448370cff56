// Runs the pinned Codex CLI (`codex exec`) against a server on 127.0.0.1 with an isolated CODEX_HOME and TMPDIR in
// a temporary folder removed when the test ends: a custom provider with `wire_api = "responses"`, no update check,
// no analytics, and a proxy that goes nowhere for anything but 127.0.0.1, so Codex cannot reach any other network.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { API_KEY } from './server.js';

const codexBin = createRequire(import.meta.url).resolve('@openai/codex/bin/codex.js');

/** The config.toml of docs/use-with-codex-and-agents.md, for one base URL and model. */
export function codexConfig(baseUrl: string, model: string): string {
  return `model = "${model}"
model_provider = "openresponses"
approval_policy = "never"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.openresponses]
name = "Open Responses"
base_url = "${baseUrl}"
env_key = "OPENRESPONSES_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
`;
}

export interface CodexHome {
  /** The CODEX_HOME folder (config, sessions). */
  home: string;
  /** The working folder Codex runs commands in. */
  workdir: string;
  /** Codex's TMPDIR (it keeps a daemon folder and a sandbox lock there). */
  tmp: string;
}

/** A Codex home for the current test, removed when it ends (pass or fail). */
export function codexHome(baseUrl: string, model: string): CodexHome {
  const root = mkdtempSync(path.join(tmpdir(), 'codex-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const home = path.join(root, 'home');
  const workdir = path.join(root, 'work');
  const tmp = path.join(root, 'tmp');
  for (const folder of [home, workdir, tmp]) mkdirSync(folder);
  writeFileSync(path.join(home, 'config.toml'), codexConfig(baseUrl, model));
  return { home, workdir, tmp };
}

/** `codex exec <args>`: its exit code and output (the final message is the last line of stdout). */
export function codexExec(
  where: CodexHome,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [codexBin, 'exec', '--skip-git-repo-check', ...args], {
    cwd: where.workdir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: where.home,
      CODEX_HOME: where.home,
      TMPDIR: where.tmp,
      TMP: where.tmp,
      TEMP: where.tmp,
      OPENRESPONSES_API_KEY: API_KEY,
      // Everything but 127.0.0.1 goes to a closed port.
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
      ALL_PROXY: 'http://127.0.0.1:9',
      NO_PROXY: '127.0.0.1,localhost',
      RUST_LOG: 'error',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

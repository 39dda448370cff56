// What `npm install @openresponses/server` weighs, from the packed tarballs: without the optional
// OpenTelemetry SDK (peer dependencies the CLI loads only when OTEL_* or --metrics asks) it must stay under
// 20 MB. The SDK with its exporters and gRPC was 67 MB of the 105 MB it used to pull.
import { execFile } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import { packAll } from '../../test-support/tarballs.js';

const run = promisify(execFile);
const MAX_INSTALL_BYTES = 20 * 1024 * 1024;
const work = mkdtempSync(path.join(tmpdir(), 'openresponses-size-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Bytes of every file under `dir` (what the install put on disk, before block rounding), and the packages in it. */
function weigh(dir: string): { bytes: number; packages: number } {
  let bytes = 0;
  let packages = 0;
  const visit = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(full);
      else {
        bytes += lstatSync(full).size;
        // A package: a package.json right inside node_modules/<name> or node_modules/@scope/<name>.
        if (entry.name === 'package.json' && /node_modules[/\\](@[^/\\]+[/\\])?[^/\\]+$/.test(folder)) packages++;
      }
    }
  };
  visit(dir);
  return { bytes, packages };
}

test('npm install of the server tarball, without the optional OpenTelemetry SDK, is under 20 MB', async () => {
  const tarballs = await packAll(work);
  const project = path.join(work, 'project');
  mkdirSync(project, { recursive: true });
  const ours = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]));
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({
      name: 'size',
      private: true,
      type: 'module',
      dependencies: { '@openresponses/server': ours['@openresponses/server'] },
      // Our other packages from their tarballs too, as a registry would serve them.
      overrides: ours,
    }),
  );
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], { cwd: project });
  const modules = path.join(project, 'node_modules');
  const installed = readdirSync(path.join(modules, '@opentelemetry'));
  expect(installed).not.toContain('sdk-node');
  expect(installed).not.toContain('exporter-prometheus');
  expect(readdirSync(modules)).not.toContain('@grpc');
  const { bytes, packages } = weigh(modules);
  console.log(`npm install @openresponses/server: ${packages} packages, ${(bytes / 1024 / 1024).toFixed(1)} MB`);
  expect(bytes).toBeLessThan(MAX_INSTALL_BYTES);
  // And it runs: the CLI starts far enough to print its help without the SDK.
  const { stdout } = await run(
    process.execPath,
    [path.join(modules, '@openresponses/server/bin/openresponses-server.js'), '--help'],
    { cwd: project },
  );
  expect(stdout).toContain('--metrics');
}, 600_000);

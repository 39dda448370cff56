// The repository's workspace packages, read from the root package.json's `workspaces` (a folder, or `folder/*`
// for every folder in it with a package.json), for tests that copy the repository or check its import edges.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface WorkspacePackage {
  name: string;
  /** The package's folder, absolute. */
  dir: string;
}

export function workspacePackages(root: string): WorkspacePackage[] {
  const { workspaces } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  return workspaces.flatMap((pattern) => {
    const dirs = pattern.endsWith('/*')
      ? readdirSync(path.join(root, pattern.slice(0, -2))).map((entry) => path.join(root, pattern.slice(0, -2), entry))
      : [path.join(root, pattern)];
    return dirs.flatMap((dir) => {
      try {
        const { name } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string };
        return [{ name, dir }];
      } catch {
        return [];
      }
    });
  });
}

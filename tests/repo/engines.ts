// The Node versions the lock file's packages declare (`engines.node`) against the ones this repository claims
// (the root package.json's `engines.node`, and each published package's own). npm only warns about a package
// whose engines exclude the running Node, so a dependency bump can silently leave Node 20 behind (as
// @openai/agents 0.15.0 did: its `openai` 7 declares `>=22.0.0`); this reads the lock, not node_modules.
import semver from 'semver';

/** The parts of a package-lock.json (lockfileVersion 3) entry this check reads. */
export interface LockEntry {
  name?: string;
  version?: string;
  private?: boolean;
  link?: boolean;
  resolved?: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface Lock {
  packages: Record<string, LockEntry>;
}

export interface EngineMismatch {
  /** The entry's key in the lock file (`node_modules/…`, or a workspace folder). */
  where: string;
  version: string | undefined;
  engines: string;
}

/** The whole major line of the lowest Node version a range admits: `>=20` -> `^20.0.0`. */
export function lowestMajor(claimed: string): string {
  const lowest = semver.minVersion(claimed);
  if (!lowest) throw new Error(`engines.node ${JSON.stringify(claimed)} admits no Node version`);
  return `^${lowest.major}.0.0`;
}

/** Every entry of the lock file whose `engines.node` admits no release at all of `major` (e.g. `^20.0.0`). */
export function excludingMajor(lock: Lock, major: string): EngineMismatch[] {
  return Object.entries(lock.packages).flatMap(([where, entry]) => {
    const engines = entry.engines?.node;
    return engines !== undefined && !semver.intersects(engines, major)
      ? [{ where, version: entry.version, engines }]
      : [];
  });
}

/** The lock key a dependency `name` of the entry at `from` resolves to, as Node's lookup walks up the folders. */
function resolveIn(lock: Lock, from: string, name: string): string | undefined {
  let folder = from;
  for (;;) {
    const key = folder === '' ? `node_modules/${name}` : `${folder}/node_modules/${name}`;
    const entry = lock.packages[key];
    if (entry) return entry.link && entry.resolved !== undefined ? entry.resolved : key;
    if (folder === '') return undefined;
    const parent = folder.lastIndexOf('/node_modules/');
    folder = parent < 0 ? '' : folder.slice(0, parent);
  }
}

/**
 * The lock keys of what installing the package at `root` brings: its dependencies, optional dependencies and
 * required peers, and theirs, transitively (optional peers are the user's choice, so not followed).
 */
export function runtimeClosure(lock: Lock, root: string): string[] {
  const seen = new Set<string>();
  const pending = [root];
  for (let from = pending.pop(); from !== undefined; from = pending.pop()) {
    const entry = lock.packages[from] ?? {};
    const requiredPeers = Object.keys(entry.peerDependencies ?? {}).filter(
      (name) => !entry.peerDependenciesMeta?.[name]?.optional,
    );
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...requiredPeers,
    ];
    for (const name of names) {
      const key = resolveIn(lock, from, name);
      if (key === undefined || key === root || seen.has(key)) continue;
      seen.add(key);
      pending.push(key);
    }
  }
  return [...seen].sort();
}

/** The entries among `keys` whose `engines.node` leaves out some Node version inside `range`. */
export function notCovering(lock: Lock, keys: string[], range: string): EngineMismatch[] {
  return keys.flatMap((where) => {
    const entry = lock.packages[where];
    const engines = entry?.engines?.node;
    return engines !== undefined && !semver.subset(range, engines) ? [{ where, version: entry?.version, engines }] : [];
  });
}

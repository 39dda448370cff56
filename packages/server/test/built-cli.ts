// The tests start the server's CLI as a child from the package's build (dist/node/cli.js, what the package ships,
// importing the workspace packages' builds too), not from the sources through tsx: a start costs ~0.9 s of CPU
// against ~1.6-3 s (tsx's loader hooks see every module), and the suite starts it ~100 times. The global setup
// test-support/fresh-build.ts makes sure that build is fresh.
import { fileURLToPath } from 'node:url';

/** The built CLI, for `spawn(process.execPath, [...nodeFlags, builtCli, ...args])`. */
export const builtCli = fileURLToPath(new URL('../dist/node/cli.js', import.meta.url));

// The reference server's CLI from the server package's build (dist/node/cli.js, what the package ships, importing
// the workspace packages' builds too), for the suites that start it as a child: a start costs ~0.9 s of CPU against
// ~1.6-3 s from the sources through tsx (its loader hooks see every module). Not through the package's bin, which
// runs the sources when no build exists: a missing build fails here instead. The global setup
// test-support/fresh-build.ts makes sure the build is fresh.
import { fileURLToPath } from 'node:url';

/** The built CLI, for `spawn(process.execPath, [...nodeFlags, serverCli, ...args])`. */
export const serverCli = fileURLToPath(new URL('../packages/server/dist/node/cli.js', import.meta.url));

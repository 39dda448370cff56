// Command line of the guest scripts for Node, Bun and Deno: `imports <specifier...>`, `suite <input.json>`, `client <baseURL> <key>`, `socket-client <baseURL> <key>`,
// `serve <key>`. Each prints one JSON line; `serve` then keeps serving until the test ends the process.
import { readFile } from 'node:fs/promises';

const [command, ...args] = globalThis.Deno ? Deno.args : process.argv.slice(2);
const print = (value) => console.log(JSON.stringify(value));

// Each command loads only what it needs: `imports <specifier...>` is the one that loads Node-only entry points.
if (command === 'imports') {
  const exports = {};
  for (const specifier of args) exports[specifier] = Object.keys(await import(specifier)).sort();
  print(exports);
} else if (command === 'suite') {
  const { runSuite } = await import('./suite.mjs');
  print(await runSuite(JSON.parse(await readFile(args[0], 'utf8'))));
} else if (command === 'client') {
  const { runClient } = await import('./client.mjs');
  print(await runClient(args[0], args[1]));
} else if (command === 'socket-client') {
  const { runSocketClient } = await import('./client.mjs');
  print(await runSocketClient(args[0], args[1]));
} else if (command === 'serve') {
  const { serve } = await import('./serve.mjs');
  print({ url: await serve({ apiKey: args[0] }) });
} else throw new Error(`unknown command ${command}`);

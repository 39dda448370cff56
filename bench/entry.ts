// Runs one benchmark module: its exported `run()` (sync or async).
import { pathToFileURL } from 'node:url';

const file = process.argv[2];
if (!file) throw new Error('usage: entry.ts <benchmark file>');
const module = (await import(pathToFileURL(file).href)) as { run?: () => unknown };
if (typeof module.run !== 'function') throw new Error(`${file} exports no run()`);
await module.run();

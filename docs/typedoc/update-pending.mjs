// `node docs/typedoc/update-pending.mjs`: rewrites not-yet-documented.json with the hand-written exports that
// still lack a doc comment (converts and validates without rendering): a to-do list while documenting. The
// committed list is empty (a new name means a new undocumented export: document it instead).
import { readFileSync, writeFileSync } from 'node:fs';
import { Application, LogLevel } from 'typedoc';
import config from './typedoc.config.mjs';

const file = new URL('./not-yet-documented.json', import.meta.url);
const before = JSON.parse(readFileSync(file, 'utf8'));
const names = new Set();
const app = await Application.bootstrapWithPlugins({
  ...config,
  intentionallyNotDocumented: [],
  logLevel: LogLevel.Warn,
});
// TypeDoc's console logger prints each warning: pick the undocumented names out of what it prints.
for (const method of ['log', 'warn', 'error']) {
  const print = console[method].bind(console);
  console[method] = (...args) => {
    const text = args.join(' ').replace(/\x1b\[[0-9;]*m/g, '');
    const match = /(\S+) \(\w+\), defined in .*, does not have any documentation/.exec(text);
    if (match) names.add(match[1]);
    else print(...args);
  };
}
const project = await app.convert();
if (!project) throw new Error('conversion failed');
app.validate(project);
if (app.logger.hasErrors()) throw new Error('TypeDoc reported errors: the list is left as it was');
const added = [...names].filter((n) => !before.names.includes(n));
writeFileSync(file, `${JSON.stringify({ ...before, names: [...names].sort() }, null, 2)}\n`);
console.log(`${before.names.length} -> ${names.size} names${added.length ? `; new: ${added.join(', ')}` : ''}`);

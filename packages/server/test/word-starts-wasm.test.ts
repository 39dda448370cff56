// The word count's WebAssembly module (models/item-text.ts, `WORD_STARTS`) and the JSON escape check's
// (json-text.ts, `PLAIN_JSON`) are kept in the source as base64 bytes beside the WebAssembly text they were
// assembled from. This assembles that text with wabt (the WebAssembly binary toolkit's own assembler) and
// checks that the bytes are exactly its output, so the text a reader reviews is the code that runs.
import { readFileSync } from 'node:fs';
import wabt from 'wabt';
import { expect, test } from 'vitest';

const sourceOf = (file: string) => readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');

/** The comment's WebAssembly text: the lines after "Assembled from this text", without their ` *   ` margin. */
function watInComment(text: string): string {
  const start = text.indexOf(' *   (module');
  expect(start, 'the WebAssembly text in the comment').toBeGreaterThan(0);
  const end = text.indexOf(' */', start);
  return text
    .slice(start, end)
    .split('\n')
    .map((line) => line.replace(/^ \* {3}/, ''))
    .join('\n');
}

test.each([
  ['WORD_STARTS', 'models/item-text.ts'],
  ['PLAIN_JSON', 'json-text.ts'],
])('%s is the WebAssembly text beside it, assembled', async (name, file) => {
  const source = sourceOf(file);
  const bytes = source.match(new RegExp(`const ${name} =\\s*'([A-Za-z0-9+/=]+)';`))?.[1];
  expect(bytes, `the base64 bytes of ${name}`).toBeDefined();
  const assembler = await wabt();
  const module = assembler.parseWat(`${name}.wat`, watInComment(source), { simd: true });
  try {
    module.validate();
    const { buffer } = module.toBinary({ canonicalize_lebs: true });
    expect(Buffer.from(buffer).toString('base64')).toBe(bytes);
  } finally {
    module.destroy();
  }
});

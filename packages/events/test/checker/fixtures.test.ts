// Recorded shapes of broken peer streams (test/__fixtures__/*.sse, written by hand after public bug
// reports), decoded and checked: each must be reported with exactly the rules listed here.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { decodeSSE } from '../../src/sse/decoder.js';
import { checkStream, type Violation } from '../../src/checker/checker.js';
import { createAccumulator } from '../../src/accumulator/accumulator.js';

async function load(name: string, profile: 'spec' | 'lenient' = 'lenient') {
  const bytes = readFileSync(new URL(`../__fixtures__/${name}`, import.meta.url));
  const stream = decodeSSE(new Blob([bytes]).stream(), { profile });
  const events: unknown[] = [];
  for await (const event of stream) events.push(event);
  return { events, sawDone: stream.sawDone };
}
const rules = (violations: Violation[], severity: Violation['severity'] = 'error') =>
  [...new Set(violations.filter((v) => v.severity === severity).map((v) => v.rule))].sort();

describe('broken peer streams are reported with the exact rule', () => {
  const cases: Array<[file: string, profile: 'spec' | 'lenient', errors: string[], warnings: string[]]> = [
    ['good-text.sse', 'spec', [], []],
    ['multi-line-data.sse', 'spec', [], []],
    ['three-events.sse', 'spec', ['terminal-output-mismatch'], []],
    ['no-output-text-done.sse', 'spec', ['text-done-missing'], []],
    ['no-sequence-number.sse', 'spec', ['sequence-number-missing'], []],
    ['no-sequence-number.sse', 'lenient', [], ['sequence-number-missing']],
    ['created-without-response.sse', 'spec', ['schema'], []],
    ['empty-completed-output.sse', 'spec', ['terminal-output-mismatch'], []],
    ['event-before-created.sse', 'spec', ['first-event'], []],
    ['swallowed-error.sse', 'spec', ['error-then-failed', 'item-not-done', 'terminal-output-mismatch'], []],
    ['no-done.sse', 'spec', ['missing-done'], []],
    ['no-done.sse', 'lenient', [], ['missing-done']],
    ['reasoning-text-names.sse', 'spec', ['unknown-event-type'], []],
    ['reasoning-text-names.sse', 'lenient', [], ['part-not-added', 'peer-event-name']],
    ['delta-sum-mismatch.sse', 'spec', ['delta-sum'], []],
    ['repeated-sequence-numbers.sse', 'spec', ['sequence-number-order'], []],
  ];
  test.each(cases)('%s (%s profile)', async (file, profile, errors, warnings) => {
    const { events, sawDone } = await load(file);
    const violations = checkStream(events, { profile, sawDone });
    expect(rules(violations, 'error'), JSON.stringify(violations, null, 1)).toEqual([...errors].sort());
    expect(rules(violations, 'warning')).toEqual([...warnings].sort());
  });

  test('the accumulator still recovers the answer from a stream whose terminal output is empty', async () => {
    const { events } = await load('empty-completed-output.sse');
    const accumulator = createAccumulator();
    for (const event of events) accumulator.push(event as never);
    expect(accumulator.response?.output[0]).toMatchObject({ content: [{ text: 'Hello world' }] });
  });
});

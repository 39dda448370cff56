// The inspector's model on recorded streams (the events package's fixtures): the timeline, the tree of
// items and parts, and violations attached to the events that caused them.
import { readFile } from 'node:fs/promises';
import { decodeSSE } from '@openresponses/events';
import { describe, expect, test } from 'vitest';
import { StreamInspector } from '../src/inspector.js';

const fixture = (name: string) => readFile(new URL(`../../events/test/__fixtures__/${name}`, import.meta.url), 'utf8');

async function inspect(name: string): Promise<StreamInspector> {
  const inspector = new StreamInspector();
  const events = decodeSSE(new Blob([await fixture(name)]).stream(), { profile: 'lenient' });
  let at = 0;
  for await (const event of events) inspector.push(event, at++);
  inspector.end(events.sawDone);
  return inspector;
}

describe('StreamInspector', () => {
  test('a correct stream: every rule holds, the tree closes, the text is the deltas', async () => {
    const inspector = await inspect('good-text.sse');
    expect(inspector.entries.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(inspector.entries.map((e) => e.sequenceNumber)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(inspector.entries[4]?.outputIndex).toBe(0);
    expect(inspector.violations).toEqual([]);
    expect(inspector.verdicts.every((v) => v.violations.length === 0)).toBe(true);
    expect(inspector.text).toBe('Hello world');
    expect(inspector.tree).toHaveLength(1);
    expect(inspector.tree[0]).toMatchObject({
      kind: 'item',
      state: 'done',
      label: expect.stringContaining('message msg_1'),
    });
    expect(inspector.tree[0]?.children).toEqual([
      { key: '0.content.0', label: 'content[0] output_text', kind: 'part', state: 'done', children: [] },
    ]);
  });

  test('an open item stays open in the tree until its .done event', () => {
    const inspector = new StreamInspector();
    inspector.push(
      {
        type: 'response.output_item.added',
        output_index: 0,
        sequence_number: 0,
        item: { type: 'message', id: 'm', role: 'assistant', status: 'in_progress', content: [] },
      },
      0,
    );
    expect(inspector.tree[0]?.state).toBe('open');
    // Pushed out of order on purpose: the checker flags it on this very event.
    expect(inspector.entries[0]?.violations.map((v) => v.rule)).toContain('first-event');
  });

  test('a violation is attached to the event that caused it', async () => {
    const inspector = await inspect('repeated-sequence-numbers.sse');
    // Events 0..4 number 0..4; the sixth event (index 5) repeats 4.
    const flagged = inspector.entries.filter((e) => e.violations.some((v) => v.rule === 'sequence-number-order'));
    expect(flagged[0]?.index).toBe(5);
    const verdict = inspector.verdicts.find((v) => v.rule === 'sequence-number-order');
    expect(verdict?.violations.length).toBeGreaterThan(0);
  });

  test('a part closed without its text .done event is flagged on that event', async () => {
    const inspector = await inspect('no-output-text-done.sse');
    const flagged = inspector.entries.filter((e) => e.violations.some((v) => v.rule === 'text-done-missing'));
    expect(flagged.map((e) => e.type)).toContain('response.content_part.done');
  });

  test('end-of-stream violations without an event are kept apart', async () => {
    const inspector = await inspect('no-done.sse');
    const missingDone = [...inspector.endViolations, ...inspector.entries.flatMap((e) => e.violations)].filter(
      (v) => v.rule === 'missing-done',
    );
    expect(missingDone).toHaveLength(1);
  });
});

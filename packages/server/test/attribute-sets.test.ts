// The interned attribute sets spans and metrics are started and recorded with (telemetry/attributes.ts): one
// frozen object per set of parts, made once, and bounded since model names and routes come from outside.
import { expect, test } from 'vitest';
import { AttributeSets } from '../src/telemetry/attributes.js';

test('the same parts give the same frozen set, made once; other parts another', () => {
  const sets = new AttributeSets();
  let made = 0;
  const make = (model: string) => () => {
    made++;
    return { 'gen_ai.request.model': model };
  };
  const first = sets.get('openai', 'gpt-a', 200, undefined, make('gpt-a'));
  expect(sets.get('openai', 'gpt-a', 200, undefined, make('gpt-a'))).toBe(first);
  expect(Object.isFrozen(first)).toBe(true);
  expect(first).toEqual({ 'gen_ai.request.model': 'gpt-a' });
  const other = sets.get('openai', 'gpt-a', 500, undefined, make('gpt-a'));
  expect(other).not.toBe(first);
  expect(made).toBe(2);
});

test('past 2,000 sets a set is still right but made each time and not kept; the kept ones stay', () => {
  const sets = new AttributeSets<{ readonly name: string }>();
  const kept = Array.from({ length: 2000 }, (_, i) =>
    sets.get(`model-${i}`, undefined, undefined, undefined, () => ({ name: `chat model-${i}` })),
  );
  const late = sets.get('model-late', undefined, undefined, undefined, () => ({ name: 'chat model-late' }));
  expect(late).toEqual({ name: 'chat model-late' });
  expect(Object.isFrozen(late)).toBe(true);
  expect(sets.get('model-late', undefined, undefined, undefined, () => ({ name: 'chat model-late' }))).not.toBe(late);
  expect(sets.get('model-7', undefined, undefined, undefined, () => ({ name: 'made again' }))).toBe(kept[7]);
  expect(kept[1999]!.name).toBe('chat model-1999');
});

test('make is given the parts asked for: one function made once serves every lookup, no closure per call', () => {
  const sets = new AttributeSets<{ readonly key: string }>();
  const made = (a: string, b: number | undefined, c: boolean, d: undefined) => ({ key: `${a} ${b} ${c} ${d}` });
  expect(sets.get('POST', 200, true, undefined, made)).toEqual({ key: 'POST 200 true undefined' });
  expect(sets.get('GET', undefined, false, undefined, made)).toEqual({ key: 'GET undefined false undefined' });
});

// The hostile-upstream contract (@openresponses/server/testing): every registered provider family has a
// hostile wire. The family list comes from the routes registry, so a family registered without one fails here.
import { expect, test } from 'vitest';
import { FAMILY_TYPES } from '../src/models/routes.js';
import { HOSTILE_WIRES, REQUIRED_HOSTILE_FIELDS } from '../src/testing/index.js';

test('every registered provider family has a hostile wire (add yours to HOSTILE_WIRES)', () => {
  expect(FAMILY_TYPES.length).toBeGreaterThan(1);
  expect(FAMILY_TYPES.filter((type) => !HOSTILE_WIRES[type])).toEqual([]);
  for (const type of FAMILY_TYPES)
    for (const field of REQUIRED_HOSTILE_FIELDS)
      expect(Object.keys(HOSTILE_WIRES[type]!.floods), type).toContain(field);
});

// Lets the standalone snapshots import their version's types as the generated package code does.
export type * from '../../types/maps-and-constraints/index.gen.js';

// Lets the standalone snapshots import their version's types as the generated package code does.
export type * from '../../types/nullable-and-allof/index.gen.js';

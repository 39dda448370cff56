// Lets the snapshot outputs import the types package's OpaqueMember as the generated package code does.
export type * from '../../../types/src/opaque-member.js';

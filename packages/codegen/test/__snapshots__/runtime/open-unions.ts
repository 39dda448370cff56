// Lets the snapshot outputs import the zod package's runtime as the generated package code does.
export * from '../../../../zod/src/runtime/open-unions.js';

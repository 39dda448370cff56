// Lets the snapshot outputs import the types package's validator runtime as the generated package code does.
export * from '../../../types/src/validation-runtime.js';

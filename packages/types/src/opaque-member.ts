/**
 * A member of an open union (items, content, annotations, tools, streaming events) whose `type` this
 * spec version does not define: a vendor extension or a newer spec's addition. Forward-compatible
 * parsing keeps it intact, so it can be ignored, inspected or passed on.
 */
export type OpaqueMember = { type: string; [key: string]: unknown };

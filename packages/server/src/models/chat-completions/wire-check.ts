/**
 * Fast checks of what a Chat Completions upstream sends, accepting exactly what `chunkSchema` and
 * `completionSchema` (wire.ts) accept: plain functions over the parsed JSON, no copy made. Every chunk of
 * every streamed turn passes here, and Zod's loose-object parse (which copies each object) cost a gateway turn
 * more than parsing the chunk itself. A value these refuse goes through the Zod schema for its error message;
 * test/chat-completions-wire-check.test.ts proves both accept and refuse the same values.
 */
import type { ChatChunk, ChatCompletion } from './wire.js';

type Check = (value: unknown) => boolean;

/** A JSON object (not null, not an array), as Zod's objects require. */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNullish = (value: unknown) => value === undefined || value === null;
const isString = (value: unknown) => typeof value === 'string';
/** `z.number()`: finite. */
const isNumber = (value: unknown) => typeof value === 'number' && Number.isFinite(value);
/** `z.number().int().nonnegative()` (Zod's `int` is a safe integer). */
const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
const isNullishString = (value: unknown) => isNullish(value) || typeof value === 'string';
const isNullishCount = (value: unknown) => isNullish(value) || isCount(value);
const isByte = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= 255;

function everyOf(value: unknown, check: Check): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!check(value[i])) return false;
  return true;
}
const nullishEvery = (value: unknown, check: Check) => isNullish(value) || everyOf(value, check);

function isUsage(value: unknown): boolean {
  if (!isObject(value)) return false;
  const { prompt_tokens_details: input, completion_tokens_details: output } = value;
  return (
    isNullishCount(value.prompt_tokens) &&
    isNullishCount(value.completion_tokens) &&
    isNullishCount(value.total_tokens) &&
    (isNullish(input) || (isObject(input) && isNullishCount(input.cached_tokens))) &&
    (isNullish(output) || (isObject(output) && isNullishCount(output.reasoning_tokens)))
  );
}

const isTopLogprob = (value: unknown) =>
  isObject(value) && isString(value.token) && isNumber(value.logprob) && nullishEvery(value.bytes, isByte);

const isTokenLogprob = (value: unknown) =>
  isTopLogprob(value) && nullishEvery((value as Record<string, unknown>).top_logprobs, isTopLogprob);

const isLogprobs = (value: unknown) => isObject(value) && nullishEvery(value.content, isTokenLogprob);

/** The text fields a delta and a message share. */
const hasTexts = (value: Record<string, unknown>) =>
  isNullishString(value.content) &&
  isNullishString(value.refusal) &&
  isNullishString(value.reasoning_content) &&
  isNullishString(value.reasoning);

const isChoiceRest = (choice: Record<string, unknown>) =>
  (isNullish(choice.logprobs) || isLogprobs(choice.logprobs)) && isNullishString(choice.finish_reason);

const isStreamedCall = (value: unknown) =>
  isObject(value) &&
  isNullishCount(value.index) &&
  isNullishString(value.id) &&
  (isNullish(value.function) ||
    (isObject(value.function) && isNullishString(value.function.name) && isNullishString(value.function.arguments)));

const isDelta = (value: unknown) =>
  isObject(value) && hasTexts(value) && nullishEvery(value.tool_calls, isStreamedCall);

const isChunkChoice = (value: unknown) =>
  isObject(value) && (isNullish(value.delta) || isDelta(value.delta)) && isChoiceRest(value);

// `code: z.unknown()` accepts any value, but Zod 4 requires the key.
const isStreamError = (value: unknown) =>
  isString(value) || (isObject(value) && isNullishString(value.message) && isNullishString(value.type));

/** Whether `value` is a `chat.completion.chunk` as `chunkSchema` accepts it. */
export function isChatChunk(value: unknown): value is ChatChunk {
  return (
    isObject(value) &&
    nullishEvery(value.choices, isChunkChoice) &&
    (isNullish(value.usage) || isUsage(value.usage)) &&
    (isNullish(value.error) || isStreamError(value.error))
  );
}

const isWholeCall = (value: unknown) =>
  isObject(value) &&
  isNullishString(value.id) &&
  isObject(value.function) &&
  isString(value.function.name) &&
  isString(value.function.arguments);

const isMessage = (value: unknown) => isObject(value) && hasTexts(value) && nullishEvery(value.tool_calls, isWholeCall);

const isCompletionChoice = (value: unknown) => isObject(value) && isMessage(value.message) && isChoiceRest(value);

/** Whether `value` is a whole `chat.completion` as `completionSchema` accepts it. */
export function isChatCompletion(value: unknown): value is ChatCompletion {
  return (
    isObject(value) && everyOf(value.choices, isCompletionChoice) && (isNullish(value.usage) || isUsage(value.usage))
  );
}

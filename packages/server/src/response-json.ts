import type { ResponseResource } from '@openresponses/types';
import { NEEDS_ESCAPE, writtenAsIs } from './json-text.js';

/**
 * `JSON.stringify(response)`, byte for byte, cheaper for the responses the server makes: their keys are in
 * the order the server writes them (the spec's), so they are written here as literals and only the values
 * are serialized. An object whose own keys are not exactly the expected ones in that order (a field an
 * extension added, one left out, another order) or that inherits from anything but `Object.prototype` is
 * serialized by `JSON.stringify` (within its container, or the whole value when it would be left out), as is
 * every value of a shape not known here (tools, metadata, vendor items, arbitrary JSON): the text is always
 * `JSON.stringify`'s (test/response-json.test.ts holds the two equal on random values).
 */
export function responseJson(response: ResponseResource): string {
  return fastText(response, responseText, JSON.stringify);
}

/**
 * The short strings of the serialization under way (ids, enumerated values, names) written without a check
 * of their own: they are checked together by one regular expression at its end, since a call each costs
 * more than the scan. Free text (a message's text, instructions) is checked string by string.
 */
let unchecked = '';

/** Thrown where the fast path cannot write a value as `JSON.stringify` would (one it leaves out): the whole is serialized by it. */
const UNKNOWN = Symbol('unknown shape');

/**
 * `text(value)`, or `whole(value)` (`JSON.stringify`'s text) when `text` answers undefined, an unchecked
 * string needs an escape or a value is UNKNOWN. The one frame of `responseJson` and `itemsJsonPieces`.
 */
export function fastText<T, R>(value: T, text: (value: T) => R | undefined, whole: (value: T) => R): R {
  // Saved and restored: a `toJSON` that `JSON.stringify` calls inside may serialize a response of its own.
  const outer = unchecked;
  unchecked = '';
  try {
    const fast = text(value);
    // The first character read flattens the rope (see `flat`): a regular expression then reads it without a call
    // into V8's runtime (~0.5k instructions a test). A NUL there needs an escape.
    if (fast !== undefined && unchecked.charCodeAt(0) !== 0 && !NEEDS_ESCAPE.test(unchecked)) return fast;
  } catch (error) {
    if (error !== UNKNOWN) throw error;
  } finally {
    unchecked = outer;
  }
  return whole(value);
}

/**
 * `text`, read once so that V8 flattens it: `JSON.stringify` answers one flat string, a template a rope of its
 * pieces, which every reader flattens anyway and a store would otherwise keep piece by piece (each an object
 * for the young generation to copy: the stored turn cost more with ropes than with JSON.stringify). No JSON
 * text starts with a NUL, so it is never undefined; the test is only the read.
 */
export const flat = (text: string) => (text.charCodeAt(0) === 0 ? undefined : text);

export type Fields = Record<string, unknown>;

/** Any value as `JSON.stringify` writes it as a property's value; one it would leave out is UNKNOWN. */
export function valueText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return writtenAsIs(value) ? `"${value}"` : JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? `${value}` : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return value === null ? 'null' : (JSON.stringify(value) ?? unknown());
    default:
      return unknown();
  }
}

// COMMON_VALUES: where a fixed field usually holds one value (a response's `object` and `status`, a message's
// `status` and `role`, empty lists, zero token details), that value is written inside the literal around it:
// each value written on its own is two or three string additions, rope pieces that `flat` copies one by one,
// and characters for the unchecked test.

/** A value expected to be a short string (see `unchecked`), or any value. */
export function shortText(value: unknown): string {
  if (typeof value !== 'string') return valueText(value);
  unchecked += value;
  return `"${value}"`;
}

function unknown(): never {
  throw UNKNOWN;
}

/**
 * Whether `fields` (an object made by `{…}` with no `toJSON`: a `plain…` check's answer) has exactly `keys` as
 * the own enumerable keys `JSON.stringify` writes, in that order, none inherited. `for…in` lists the own
 * enumerable keys first and the inherited ones after them, so when the last key it lists is the object's own,
 * every key is: one `hasOwnProperty` an object, not one a key (61 a gateway turn). `for…in` reads V8's cached
 * key list without making an array.
 */
function hasKeys(fields: Fields | undefined, keys: readonly string[]): fields is Fields {
  if (fields === undefined) return false;
  let at = 0;
  for (const key in fields) if (key !== keys[at++]) return false;
  return at === keys.length && (at === 0 || ownKey.call(fields, keys[at - 1]));
}
export const ownKey = Object.prototype.hasOwnProperty;

// PLAIN_SITES: whether a value is an object made by `{…}` (not a boxed primitive, an array, a class instance or a
// null-prototype object) with no `toJSON`, so that `JSON.stringify` writes it as its own enumerable keys, is two
// loads (`constructor`, `toJSON`; `Object.getPrototypeOf` cost a runtime call an object). V8 makes a load that
// meets more than four maps generic (a megamorphic load through its stub cache, ~70 instructions, where up to four
// are compared inline): one check read by every shape here (11 maps in a stored gateway turn) made them 24
// generic loads a turn, ~1.8k instructions (callgrind, by call arcs). So each group of up to four shapes has a
// check of its own, the same two loads at another site; `plainFields` is input-json's (its messages and parts).

/** `value` when made by `{…}` with no `toJSON` (see `PLAIN_SITES`), else undefined. */
export const plainFields = (value: unknown): Fields | undefined =>
  typeof value === 'object' &&
  value !== null &&
  (value as Fields).constructor === Object &&
  (value as Fields).toJSON === undefined
    ? (value as Fields)
    : undefined;

/** `plainFields` of a response, its usage and its metadata (see `PLAIN_SITES`). */
const plainTop = (value: unknown): Fields | undefined =>
  typeof value === 'object' &&
  value !== null &&
  (value as Fields).constructor === Object &&
  (value as Fields).toJSON === undefined
    ? (value as Fields)
    : undefined;

/** `plainFields` of the text settings and the token details, `shaped`'s (see `PLAIN_SITES`). */
const plainDetail = (value: unknown): Fields | undefined =>
  typeof value === 'object' &&
  value !== null &&
  (value as Fields).constructor === Object &&
  (value as Fields).toJSON === undefined
    ? (value as Fields)
    : undefined;

/** `plainFields` of output items and their content parts (see `PLAIN_SITES`). */
const plainItem = (value: unknown): Fields | undefined =>
  typeof value === 'object' &&
  value !== null &&
  (value as Fields).constructor === Object &&
  (value as Fields).toJSON === undefined
    ? (value as Fields)
    : undefined;

/** Whether `JSON.stringify` writes `value` element by element: an array of the realm's own, with no `toJSON`. */
export const isPlainArray = (value: unknown): value is unknown[] =>
  Array.isArray(value) &&
  Object.getPrototypeOf(value) === Array.prototype &&
  (value as { toJSON?: unknown }).toJSON === undefined;

/** An object of a known shape (the text settings, token details) through `text`, any other value as `JSON.stringify` writes it. */
function shaped(value: unknown, keys: readonly string[], text: (fields: Fields) => string): string {
  const fields = plainDetail(value);
  return hasKeys(fields, keys) ? text(fields) : valueText(value);
}

/**
 * A plain array with each element through `element`, any other value as `JSON.stringify` writes it. An
 * element `element` does not know (undefined) sends the whole array to `JSON.stringify`: one call for a
 * list of shapes not known here costs less than a call each (946 items of 1 KiB: 4.6 against 6.8 ms).
 */
export function listText(value: unknown, element: (value: unknown) => string | undefined): string {
  if (!isPlainArray(value)) return valueText(value);
  const length = value.length;
  if (length === 0) return '[]';
  let text = element(value[0]);
  if (text === undefined) return valueText(value);
  text = `[${text}`;
  for (let i = 1; i < length; i++) {
    const next = element(value[i]);
    if (next === undefined) return valueText(value);
    text += `,${next}`;
  }
  return `${text}]`;
}

/** No element is known here: an empty list is `[]`, any other value goes to `JSON.stringify` whole. */
const noElement = () => undefined;

const NO_KEYS: readonly string[] = [];
/** An object expected to be empty (`metadata`), or any value. */
const emptyText = (value: unknown) => (hasKeys(plainTop(value), NO_KEYS) ? '{}' : valueText(value));

const RESPONSE_KEYS = [
  'id',
  'object',
  'created_at',
  'completed_at',
  'status',
  'incomplete_details',
  'previous_response_id',
  'instructions',
  'output',
  'error',
  'tools',
  'tool_choice',
  'truncation',
  'parallel_tool_calls',
  'text',
  'top_p',
  'presence_penalty',
  'frequency_penalty',
  'top_logprobs',
  'temperature',
  'reasoning',
  'usage',
  'max_output_tokens',
  'max_tool_calls',
  'store',
  'background',
  'service_tier',
  'metadata',
  'safety_identifier',
  'prompt_cache_key',
  'model',
];

/** The response's text, flat (see `flat`). */
function responseText(value: ResponseResource): string | undefined {
  if (!hasKeys(plainTop(value), RESPONSE_KEYS)) return flat(valueText(value));
  const r = value;
  // The usual values of the fixed fields are written in the literals around them (see `COMMON_VALUES`).
  return flat(
    `{"id":${shortText(r.id)}` +
      (r.object === 'response'
        ? ',"object":"response","created_at":'
        : `,"object":${shortText(r.object)},"created_at":`) +
      `${valueText(r.created_at)},"completed_at":${valueText(r.completed_at)}` +
      (r.status === 'completed' && r.incomplete_details === null
        ? ',"status":"completed","incomplete_details":null,"previous_response_id":'
        : `,"status":${shortText(r.status)},"incomplete_details":${valueText(r.incomplete_details)},"previous_response_id":`) +
      `${shortText(r.previous_response_id)},"instructions":${valueText(r.instructions)},` +
      `"output":${listText(r.output, itemText)},"error":${valueText(r.error)},` +
      (settingsAtDefaults(r) ? DEFAULT_SETTINGS : settingsText(r)) +
      `"usage":${usageJson(r.usage)},` +
      (r.store === true && restAtDefaults(r)
        ? STORED_REST
        : r.store === false && restAtDefaults(r)
          ? UNSTORED_REST
          : restText(r)) +
      `"model":${shortText(r.model)}}`,
  );
}

/**
 * The request's settings as the response echoes them, from `tools` to `reasoning`, with the comma after
 * them. Most requests leave them all at the spec's defaults: then they are one constant text.
 */
const settingsText = (r: ResponseResource) =>
  `"tools":${listText(r.tools, noElement)},"tool_choice":${shortText(r.tool_choice)},` +
  `"truncation":${shortText(r.truncation)},"parallel_tool_calls":${valueText(r.parallel_tool_calls)},` +
  `"text":${shaped(r.text, TEXT_KEYS, textConfigText)},"top_p":${valueText(r.top_p)},` +
  `"presence_penalty":${valueText(r.presence_penalty)},"frequency_penalty":${valueText(r.frequency_penalty)},` +
  `"top_logprobs":${valueText(r.top_logprobs)},"temperature":${valueText(r.temperature)},` +
  `"reasoning":${valueText(r.reasoning)},`;
const settingsAtDefaults = (r: ResponseResource) =>
  listText(r.tools, noElement) === '[]' &&
  r.tool_choice === 'auto' &&
  r.truncation === 'disabled' &&
  r.parallel_tool_calls === true &&
  hasKeys(plainDetail(r.text), TEXT_KEYS) &&
  hasKeys(plainDetail(r.text.format), FORMAT_KEYS) &&
  r.text.format.type === 'text' &&
  r.top_p === 1 &&
  r.presence_penalty === 0 &&
  r.frequency_penalty === 0 &&
  r.top_logprobs === 0 &&
  r.temperature === 1 &&
  r.reasoning === null;
const DEFAULT_SETTINGS =
  '"tools":[],"tool_choice":"auto","truncation":"disabled","parallel_tool_calls":true,"text":{"format":{"type":"text"}},' +
  '"top_p":1,"presence_penalty":0,"frequency_penalty":0,"top_logprobs":0,"temperature":1,"reasoning":null,';

/** From `max_output_tokens` to `prompt_cache_key`, with the comma after them; at the defaults, a constant. */
const restText = (r: ResponseResource) =>
  `"max_output_tokens":${valueText(r.max_output_tokens)},"max_tool_calls":${valueText(r.max_tool_calls)},` +
  `"store":${valueText(r.store)},"background":${valueText(r.background)},"service_tier":${shortText(r.service_tier)},` +
  `"metadata":${emptyText(r.metadata)},"safety_identifier":${shortText(r.safety_identifier)},` +
  `"prompt_cache_key":${shortText(r.prompt_cache_key)},`;
const restAtDefaults = (r: ResponseResource) =>
  r.max_output_tokens === null &&
  r.max_tool_calls === null &&
  r.background === false &&
  r.service_tier === 'default' &&
  emptyText(r.metadata) === '{}' &&
  r.safety_identifier === null &&
  r.prompt_cache_key === null;
const restAt = (store: boolean) =>
  `"max_output_tokens":null,"max_tool_calls":null,"store":${store},"background":false,"service_tier":"default",` +
  '"metadata":{},"safety_identifier":null,"prompt_cache_key":null,';
const STORED_REST = restAt(true);
const UNSTORED_REST = restAt(false);

const TEXT_KEYS = ['format'];
const FORMAT_KEYS = ['type'];
const textConfigText = (t: Fields) => `{"format":${shaped(t.format, FORMAT_KEYS, formatText)}}`;
const formatText = (f: Fields) => `{"type":${shortText(f.type)}}`;

const USAGE_KEYS = ['input_tokens', 'output_tokens', 'total_tokens', 'input_tokens_details', 'output_tokens_details'];
const CACHED_KEYS = ['cached_tokens'];
const REASONING_TOKENS_KEYS = ['reasoning_tokens'];
/** The usage (`shaped`, at the response's site: see `PLAIN_SITES`). */
function usageJson(value: unknown): string {
  const usage = plainTop(value);
  return hasKeys(usage, USAGE_KEYS) ? usageText(usage) : valueText(value);
}
const usageText = (u: Fields) =>
  `{"input_tokens":${valueText(u.input_tokens)},"output_tokens":${valueText(u.output_tokens)},` +
  `"total_tokens":${valueText(u.total_tokens)}` +
  (noDetailedTokens(u)
    ? NO_DETAILED_TOKENS
    : `,"input_tokens_details":${shaped(u.input_tokens_details, CACHED_KEYS, cachedText)},` +
      `"output_tokens_details":${shaped(u.output_tokens_details, REASONING_TOKENS_KEYS, reasoningTokensText)}}`);
const NO_DETAILED_TOKENS =
  ',"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":0}}';
/** Whether the usage's token details are the usual zeros. */
function noDetailedTokens(u: Fields): boolean {
  const cached = plainDetail(u.input_tokens_details);
  if (!hasKeys(cached, CACHED_KEYS) || cached.cached_tokens !== 0) return false;
  const reasoning = plainDetail(u.output_tokens_details);
  return hasKeys(reasoning, REASONING_TOKENS_KEYS) && reasoning.reasoning_tokens === 0;
}
const cachedText = (d: Fields) => `{"cached_tokens":${valueText(d.cached_tokens)}}`;
const reasoningTokensText = (d: Fields) => `{"reasoning_tokens":${valueText(d.reasoning_tokens)}}`;

const MESSAGE_KEYS = ['type', 'id', 'status', 'role', 'content'];
const PHASED_MESSAGE_KEYS = ['type', 'id', 'status', 'role', 'content', 'phase'];

/** An output item: a message in the server's shapes, else undefined. */
function itemText(value: unknown): string | undefined {
  const item = plainItem(value);
  if (hasKeys(item, PHASED_MESSAGE_KEYS) && item.type === 'message')
    return `${messageHead(item)},"phase":${shortText(item.phase)}}`;
  if (hasKeys(item, MESSAGE_KEYS) && item.type === 'message') return `${messageHead(item)}}`;
  return undefined;
}

/** A message up to its content, without the closing brace. */
const messageHead = (m: Fields) =>
  `{"type":"message","id":${shortText(m.id)}` +
  (m.status === 'completed' && m.role === 'assistant'
    ? ',"status":"completed","role":"assistant","content":'
    : `,"status":${shortText(m.status)},"role":${shortText(m.role)},"content":`) +
  listText(m.content, partText);

const OUTPUT_TEXT_KEYS = ['type', 'text', 'annotations', 'logprobs'];
const INPUT_TEXT_KEYS = ['type', 'text'];

/** A message's content part: output or input text in the server's shapes, else undefined. */
function partText(value: unknown): string | undefined {
  const part = plainItem(value);
  if (hasKeys(part, OUTPUT_TEXT_KEYS) && part.type === 'output_text') {
    const annotations = listText(part.annotations, noElement);
    const logprobs = listText(part.logprobs, noElement);
    return (
      `{"type":"output_text","text":${valueText(part.text)}` +
      (annotations === '[]' && logprobs === '[]'
        ? ',"annotations":[],"logprobs":[]}'
        : `,"annotations":${annotations},"logprobs":${logprobs}}`)
    );
  }
  if (hasKeys(part, INPUT_TEXT_KEYS) && part.type === 'input_text')
    return `{"type":"input_text","text":${valueText(part.text)}}`;
  return undefined;
}

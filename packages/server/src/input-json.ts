// The stored turn's input items as JSON in pieces (`StoredResponseText.inputPieces`), for the memory store.
import type { ItemField } from '@openresponses/types';
import { PAST_LATIN1, writtenAsIs } from './json-text.js';
import { fastText, flat, isPlainArray, listText, ownKey, plainFields, shortText, valueText } from './response-json.js';

/**
 * `JSON.stringify(items)` of a turn's input items in pieces, whose concatenation is that text: the items in
 * groups of about PIECE_CHARS of JSON, each group's text written here when all its items are text messages
 * (`messagesText`, with the comma or bracket before it), else `JSON.stringify`'s (the brackets and commas then
 * pieces of their own).
 * A long input's JSON as one string is a V8 large object, mapped fresh from the kernel each time it is made
 * (a 1 MiB input: ~257 page faults, 8 ms on the VM); pieces under V8's large-object size (128 KiB)
 * are made in the young generation's pages, which are used again. A group whose text passes LONGEST_GROUP is
 * made again of fewer items; an item longer is a group of its own. A list that `JSON.stringify` would not
 * write element by element as a group does (not a plain array, an element with a `toJSON`, which is given its
 * index) is one piece, its text. A long message text past Latin-1 is a piece of its own, the string it is
 * (see `LEFT_OUT`).
 */
export function itemsJsonPieces(items: readonly ItemField[]): string[] {
  return fastText(items, itemPieces, wholeList);
}

/** `JSON.stringify(items)` as one piece. */
const wholeList = (items: readonly ItemField[]) => [JSON.stringify(items)];

/** The JSON a group of `itemsJsonPieces` aims at: well under V8's large-object size, with room for a guess that overshoots. */
const PIECE_CHARS = 32 * 1024;
/** The longest group of more than one item `itemsJsonPieces` keeps: under V8's large-object size even at two bytes a character. */
const LONGEST_GROUP = 48 * 1024;

/**
 * Written in a group's text where a long message text was left out of it (`leftOut`), in the order met: the
 * group's pieces are the text cut there with those texts between. The store keeps a text past Latin-1 as
 * UTF-8, which it encodes from the pieces: written in, such a text was copied into the group's flat string,
 * two bytes a character, only to be encoded and dropped (a 2 MiB input: 4 MiB more for the collector each
 * turn, which V8 promoted to its old generation whenever a scavenge came during the turn: issue 35, the
 * store-budget test's RSS). Latin-1 texts stay in: the group's flat string is what the store keeps then. A
 * raw control character is in no text the writers make but an unchecked short string, after which the whole
 * is `JSON.stringify`'s (`fastText`).
 */
const LEFT_OUT = '\u0001';
/** The texts left out of the group being written, or undefined where none are (see `LEFT_OUT`). */
let leftOut: string[] | undefined;

/**
 * The list's text in pieces (see `itemsJsonPieces`); undefined where it is `JSON.stringify`'s whole. Items of
 * other shapes one `JSON.stringify` a group rather than one an item: a call an item cost 1.85 ms against
 * 1.23 ms a group for 1 MiB of messages.
 */
function itemPieces(items: unknown): string[] | undefined {
  if (!isPlainArray(items)) return undefined;
  const length = items.length;
  const pieces: string[] = [];
  // The first group's size is a guess; each next one is sized from the characters an item took so far.
  let groupSize = 8;
  let chars = 0;
  for (let from = 0; from < length; ) {
    const count = Math.min(groupSize, length - from);
    const first = from === 0;
    const last = from + count === length;
    // Messages are written with the list's bracket or the comma before them, and its bracket after the last.
    const texts: string[] = (leftOut = []);
    let written: string | undefined;
    try {
      written = messagesText(items, from, count, first ? '[' : ',', last ? ']' : '');
    } finally {
      leftOut = undefined;
    }
    const json = written ?? groupJson(items, from, count);
    if (json === undefined) return undefined;
    // A guess that took in much longer items than the last ones: the text is dropped before it is flattened
    // (`JSON.stringify`'s rope is of parts far shorter), and the same items are taken in smaller groups.
    if (json.length > LONGEST_GROUP && count > 1) {
      groupSize = Math.max(1, Math.floor((count * PIECE_CHARS) / json.length));
      continue;
    }
    if (written !== undefined && texts.length > 0) {
      const cut = written.split(LEFT_OUT);
      if (cut.length !== texts.length + 1) return undefined;
      pieces.push(cut[0]!);
      chars += written.length;
      for (let i = 0; i < texts.length; i++) {
        pieces.push(texts[i]!, cut[i + 1]!);
        chars += texts[i]!.length;
      }
      from += count;
      groupSize = Math.max(1, Math.floor((PIECE_CHARS * from) / chars));
      continue;
    }
    // `flat` once, so that the slices below share one flat string.
    const text = flat(json);
    if (text === undefined) return undefined;
    from += count;
    if (written !== undefined || (first && last)) pieces.push(text);
    else {
      if (!first) pieces.push(',');
      pieces.push(text.slice(first ? 0 : 1, last ? text.length : -1));
    }
    chars += text.length;
    groupSize = Math.max(1, Math.floor((PIECE_CHARS * from) / chars));
  }
  if (length === 0) pieces.push('[]');
  return pieces;
}

/**
 * `JSON.stringify` of `count` items from `from`, as a list; undefined when one of them is not written as an
 * element of the whole list would be (a `toJSON`, which is given its index there, or a BigInt).
 */
function groupJson(items: unknown[], from: number, count: number): string | undefined {
  // Copied by hand: `slice` would ask the list's `constructor` for the new array.
  const group = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    const item = items[from + i];
    if (
      typeof item === 'bigint' ||
      (typeof item === 'object' && item !== null && (item as { toJSON?: unknown }).toJSON !== undefined)
    )
      return undefined;
    group[i] = item;
  }
  return JSON.stringify(group);
}

/**
 * The items' JSON between `opening` and `closing` when every one is a message `inputMessageText` writes,
 * else undefined. Its texts are checked by `writtenAsIs` and written as they are, not through
 * `JSON.stringify`'s loop a character at a time: 1 MiB of messages 0.7 ms against 1.25 ms.
 */
function messagesText(
  items: unknown[],
  from: number,
  count: number,
  opening: string,
  closing: string,
): string | undefined {
  let text = opening;
  for (let i = from; i < from + count; i++) {
    const item = inputMessageText(items[i]);
    if (item === undefined) return undefined;
    text = i === from ? text + item : `${text},${item}`;
  }
  return text + closing;
}

/**
 * A message in any order of its keys (a client's, with the id and status the server adds after them), its
 * content text parts likewise; undefined for any other key, value or part, or an inherited key (the last key
 * `for…in` lists is own only when all are: see `hasKeys`). The keys are written as the literals they are; the
 * short fields through `shortText`.
 */
function inputMessageText(value: unknown): string | undefined {
  const message = plainFields(value);
  if (message === undefined || message.type !== 'message') return undefined;
  let text: string | undefined;
  let last = '';
  for (const key in message) {
    last = key;
    const field = message[key];
    const usual = usualField(key, field, text === undefined);
    if (usual !== undefined) {
      text = text === undefined ? usual : text + usual;
      continue;
    }
    let json: string | undefined;
    // The type is always `usualField`'s (`message`, checked above).
    switch (key) {
      case 'id':
      case 'status':
      case 'role':
      case 'phase':
        json = typeof field === 'string' ? shortText(field) : undefined;
        break;
      case 'content':
        json = typeof field === 'string' ? messageText(field) : listText(field, inputPartText);
        break;
    }
    const name = fieldName(key, text === undefined);
    if (json === undefined || name === undefined) return undefined;
    text = text === undefined ? name + json : text + name + json;
  }
  return text === undefined ? '{}' : ownKey.call(message, last) ? `${text}}` : undefined;
}

/**
 * `{"key":` for the first field of an object, `,"key":` for the others, for the keys these writers know: a
 * literal, so a field costs two string adds rather than four (1 MiB of messages: ~35,000 fewer a turn). A
 * switch rather than a table of the same pairs: 3–5 ns a call against 10 ns for a `Map` and 13 ns for an
 * object's keys (a micro-measure of the keys a message and its parts take, 30 November).
 */
function fieldName(key: string, first: boolean): string | undefined {
  switch (key) {
    case 'id':
      return first ? '{"id":' : ',"id":';
    case 'status':
      return first ? '{"status":' : ',"status":';
    case 'role':
      return first ? '{"role":' : ',"role":';
    case 'phase':
      return first ? '{"phase":' : ',"phase":';
    case 'content':
      return first ? '{"content":' : ',"content":';
    case 'text':
      return first ? '{"text":' : ',"text":';
    case 'annotations':
      return first ? '{"annotations":' : ',"annotations":';
    case 'logprobs':
      return first ? '{"logprobs":' : ',"logprobs":';
    default:
      return undefined;
  }
}

/**
 * A field at its usual value as one literal with its name, `{"type":"message"` or `,"status":"completed"`; else
 * undefined. Written on its own, the value is two string additions more, rope pieces that `flat` copies one by
 * one, and characters for the unchecked test (see COMMON_VALUES in response-json.ts).
 */
function usualField(key: string, field: unknown, first: boolean): string | undefined {
  switch (key) {
    case 'type':
      return field === 'message'
        ? first
          ? '{"type":"message"'
          : ',"type":"message"'
        : field === 'input_text'
          ? first
            ? '{"type":"input_text"'
            : ',"type":"input_text"'
          : field === 'output_text'
            ? first
              ? '{"type":"output_text"'
              : ',"type":"output_text"'
            : undefined;
    case 'status':
      return field === 'completed' ? (first ? '{"status":"completed"' : ',"status":"completed"') : undefined;
    case 'role':
      return field === 'user'
        ? first
          ? '{"role":"user"'
          : ',"role":"user"'
        : field === 'assistant'
          ? first
            ? '{"role":"assistant"'
            : ',"role":"assistant"'
          : undefined;
    default:
      return undefined;
  }
}

/** A message's text as JSON, or LEFT_OUT for a long one past Latin-1 that is written as it is (see `LEFT_OUT`). */
function messageText(text: string): string {
  if (leftOut === undefined || text.length <= PIECE_CHARS || !PAST_LATIN1.test(text) || !writtenAsIs(text))
    return valueText(text);
  leftOut.push(text);
  return `"${LEFT_OUT}"`;
}

/** An input or output text part in any order of its keys, with empty `annotations` and `logprobs`; else undefined. */
function inputPartText(value: unknown): string | undefined {
  const part = plainFields(value);
  if (part === undefined || (part.type !== 'input_text' && part.type !== 'output_text')) return undefined;
  let text: string | undefined;
  let last = '';
  for (const key in part) {
    last = key;
    const field = part[key];
    const usual = usualField(key, field, text === undefined);
    if (usual !== undefined) {
      text = text === undefined ? usual : text + usual;
      continue;
    }
    let json: string | undefined;
    // The type is always `usualField`'s (`input_text` or `output_text`, checked above).
    switch (key) {
      case 'text':
        json = typeof field === 'string' ? messageText(field) : undefined;
        break;
      case 'annotations':
      case 'logprobs':
        json =
          Array.isArray(field) && field.length === 0 && (field as { toJSON?: unknown }).toJSON === undefined
            ? '[]'
            : undefined;
        break;
    }
    const name = fieldName(key, text === undefined);
    if (json === undefined || name === undefined) return undefined;
    text = text === undefined ? name + json : text + name + json;
  }
  return text === undefined ? '{}' : ownKey.call(part, last) ? `${text}}` : undefined;
}

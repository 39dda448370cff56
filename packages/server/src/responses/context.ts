import { randomId } from '@openresponses/events';
import type { CreateResponseBody, ItemField, ItemParam } from '@openresponses/types';
import { MalformedDataUrl, parseDataUrl } from '../data-url.js';
import { invalidRequest, ResponsesError } from '../errors.js';
import type { StoredChain } from '../stores/contract.js';
import { type SealPurpose, type Sealer, UnsealError } from './sealed.js';

/** Loads the chain ending at a response id (for `previous_response_id`), in one call. */
export type LoadChain = (id: string) => Promise<StoredChain>;
export type LookupItem = (id: string) => Promise<ItemField | undefined>;

/**
 * What real clients send that the schema does not spell out, made explicit before validation
 * (returns a copy):
 * - messages without `type` (the openai SDK's and the AI SDK's shorthand);
 * - earlier turns' reasoning items replayed as output-shaped items, whose raw `content` array the input
 *   schema forbids: the content is dropped (the model gets it back from `encrypted_content`).
 */
export function acceptClientShapes(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy = { ...(body as Record<string, unknown>) };
  if (Array.isArray(copy.input)) {
    copy.input = copy.input.map((item) => {
      if (!item || typeof item !== 'object') return item;
      const record = item as Record<string, unknown>;
      // Object.assign, not a spread: spreading an object from JSON.parse costs Node 20 ~1.5 µs, 10x as much.
      if (!('type' in record) && 'role' in record) return Object.assign({ type: 'message' }, record);
      if (record.type === 'reasoning' && Array.isArray(record.content)) {
        const { content: _raw, ...rest } = record;
        return rest;
      }
      return record;
    });
  }
  return copy;
}

/**
 * The turn's input as output-shaped items with ids: strings become user messages, string contents
 * become text parts, item references are resolved, and our own compaction items expand into the
 * window they summarise. Earlier turns' reasoning items are accepted as they are, with or without ids.
 * Answers at once (no promise) unless an item needs the store or the sealer: a string or plain items.
 */
export function normalizeInput(
  input: CreateResponseBody['input'],
  lookupItem: LookupItem,
  sealer: Sealer,
): NormalizedInput | Promise<NormalizedInput> {
  if (input === undefined || input === null) return { input: [], expanded: [] };
  if (typeof input === 'string') {
    const message = userMessage(input);
    return { input: [message], expanded: [message] };
  }
  const out: ItemField[] = [];
  const expanded: ItemField[] = [];
  for (let index = 0; index < input.length; index++) {
    const item = input[index] as ItemParam & Record<string, unknown>;
    if (waitsFor(item)) return normalizeFrom(index, input, out, expanded, lookupItem, sealer);
    const normalized = plainItem(item, `input[${index}]`);
    out.push(normalized);
    expanded.push(normalized);
  }
  return { input: out, expanded };
}

type NormalizedInput = { input: ItemField[]; expanded: ItemField[] };

/** An item resolved from the store (a reference), or opened by the sealer (compaction, reasoning sent back). */
const waitsFor = (item: Record<string, unknown>): boolean =>
  item.type === 'item_reference' ||
  item.type === undefined ||
  item.type === null ||
  item.type === 'compaction' ||
  (item.type === 'reasoning' && typeof item.encrypted_content === 'string');

/** `normalizeInput` from the item at `from` on, into `out` and `expanded`, waiting where an item needs it. */
async function normalizeFrom(
  from: number,
  input: Exclude<CreateResponseBody['input'], string | null | undefined>,
  out: ItemField[],
  expanded: ItemField[],
  lookupItem: LookupItem,
  sealer: Sealer,
): Promise<NormalizedInput> {
  for (let index = from; index < input.length; index++) {
    const item = input[index] as ItemParam & Record<string, unknown>;
    const param = `input[${index}]`;
    if (item.type === 'item_reference' || item.type === undefined || item.type === null) {
      const found = await lookupItem(item.id as string);
      if (!found)
        throw new ResponsesError(
          'not_found',
          'item_not_found',
          `Item '${String(item.id)}' referenced by ${param} was not found.`,
          `${param}.id`,
        );
      out.push(found);
      expanded.push(found);
      continue;
    }
    if (item.type === 'compaction') {
      const window = await openOrReject<ItemField[]>(sealer, item.encrypted_content, 'compaction', param);
      const compaction = {
        type: 'compaction',
        id: (item.id as string | undefined) ?? randomId('cmp'),
        status: 'completed',
        encrypted_content: String(item.encrypted_content),
      } as ItemField;
      out.push(compaction);
      // A loop, not push(...window): spreading a long window as arguments overflows the stack.
      for (const windowItem of window) expanded.push(windowItem);
      continue;
    }
    // Reasoning sent back must be reasoning this server encrypted, unaltered.
    if (item.type === 'reasoning' && typeof item.encrypted_content === 'string')
      await openOrReject(sealer, item.encrypted_content, 'reasoning', param);
    const normalized = plainItem(item, param);
    out.push(normalized);
    expanded.push(normalized);
  }
  return { input: out, expanded };
}

/** An item that needs nothing resolved: its data URLs checked, its shape made output-like. */
function plainItem(item: Record<string, unknown>, param: string): ItemField {
  if (item.type === 'message' && Array.isArray(item.content)) rejectMalformedDataUrls(item.content, param);
  return normalizeItem(item);
}

/** The data URLs of a message's parts (images, files) are read before any family sees them: a malformed one is a 400 naming it. */
function rejectMalformedDataUrls(content: unknown[], param: string): void {
  for (let index = 0; index < content.length; index++) {
    const part = content[index];
    if (!part || typeof part !== 'object') continue;
    const record = part as Record<string, unknown>;
    const field = record.type === 'input_image' ? 'image_url' : record.type === 'input_file' ? 'file_data' : undefined;
    const value = field === undefined ? undefined : record[field];
    if (typeof value !== 'string') continue;
    const where = `${param}.content[${index}].${field}`;
    try {
      parseDataUrl(value);
    } catch (error) {
      if (!(error instanceof MalformedDataUrl)) throw error;
      throw invalidRequest('invalid_value', `${where} is not a valid data URL: ${error.message}.`, where, 400, {
        cause: error,
      });
    }
  }
}

function userMessage(text: string): ItemField {
  return {
    type: 'message',
    id: randomId('msg'),
    status: 'completed',
    role: 'user',
    content: [{ type: 'input_text', text }],
  } as ItemField;
}

function normalizeItem(item: Record<string, unknown>): ItemField {
  switch (item.type) {
    case 'message': {
      const role = item.role as string;
      const content =
        typeof item.content === 'string'
          ? [
              role === 'assistant'
                ? { type: 'output_text', text: item.content, annotations: [] }
                : { type: 'input_text', text: item.content },
            ]
          : withAnnotations(item.content as Array<Record<string, unknown>>);
      // Assigned one by one rather than from a second object: the same fields in the same order, one
      // allocation fewer per item.
      const message = Object.assign({}, item);
      message.id = (item.id as string | null) ?? randomId('msg');
      message.status = (item.status as string | null) ?? 'completed';
      message.role = role;
      message.content = content;
      return message as unknown as ItemField;
    }
    case 'function_call':
      return Object.assign({}, item, {
        id: (item.id as string | null) ?? randomId('fc'),
        status: (item.status as string | null) ?? 'completed',
      }) as unknown as ItemField;
    case 'function_call_output':
      return Object.assign({}, item, {
        id: (item.id as string | null) ?? randomId('fco'),
        status: (item.status as string | null) ?? 'completed',
      }) as unknown as ItemField;
    case 'reasoning': {
      const { content: _nullContent, encrypted_content, ...rest } = item;
      return Object.assign(
        {},
        rest,
        { id: (item.id as string | null) ?? randomId('rs'), status: (item.status as string | null) ?? 'completed' },
        typeof encrypted_content === 'string' ? { encrypted_content } : {},
      ) as unknown as ItemField;
    }
    default:
      return item as unknown as ItemField;
  }
}

/** A message's parts with `annotations: []` on each `output_text` part without them: the same array when none lacks them. */
function withAnnotations(content: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  for (const part of content)
    if (lacksAnnotations(part))
      return content.map((each) => (lacksAnnotations(each) ? Object.assign({}, each, { annotations: [] }) : each));
  return content;
}

const lacksAnnotations = (part: Record<string, unknown>) =>
  part.type === 'output_text' && !Array.isArray(part.annotations);

/**
 * The context a continuation sees: `previous.input + previous.output`, recursively back to the first
 * turn, in order. Compactions in stored input expand into the window they stand for.
 */
export async function historyOf(
  previousId: string,
  loadChain: LoadChain,
  sealer: Sealer,
  param = 'previous_response_id',
): Promise<ItemField[]> {
  const { chain, missing } = await loadChain(previousId);
  if (missing !== undefined) {
    const which =
      missing === previousId
        ? `Previous response with id '${missing}' not found.`
        : `Response '${missing}', an earlier turn of '${previousId}', is no longer stored.`;
    throw new ResponsesError('not_found', 'previous_response_not_found', which, param);
  }
  // Loops, not push(...list): long lists overflow the stack as arguments.
  const items: ItemField[] = [];
  for (const stored of chain) {
    for (const item of stored.input) {
      if (item.type !== 'compaction') {
        items.push(item);
        continue;
      }
      const encrypted = (item as { encrypted_content: string }).encrypted_content;
      const window = await openOrReject<ItemField[]>(sealer, encrypted, 'compaction', param);
      for (const windowItem of window) items.push(windowItem);
    }
    for (const item of stored.response.output) items.push(item);
  }
  return items;
}

/** Opens server-issued content, or rejects the request naming where it came from (`<param>.encrypted_content`). */
async function openOrReject<T>(sealer: Sealer, text: unknown, purpose: SealPurpose, param: string): Promise<T> {
  const where = `${param}.encrypted_content`;
  try {
    if (typeof text !== 'string') throw new UnsealError('malformed', 'it is not a string');
    return await sealer.open<T>(text, purpose);
  } catch (error) {
    if (!(error instanceof UnsealError)) throw error;
    throw new ResponsesError(
      'invalid_request',
      'invalid_encrypted_content',
      `${where} cannot be used: ${error.message}.`,
      where,
      400,
      { cause: error },
    );
  }
}

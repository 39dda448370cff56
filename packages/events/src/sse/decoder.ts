import type { AnyStreamingEvent } from '../events.js';

export type DecodeErrorCode = 'invalid_json' | 'not_an_event' | 'event_too_large' | 'event_type_mismatch' | 'missing_done' | 'data_after_done';

/** A stream that cannot be decoded; names where: the event's index and the byte offset where it starts. */
export class SSEDecodeError extends Error {
  override name = 'SSEDecodeError';
  constructor(
    readonly code: DecodeErrorCode,
    readonly eventIndex: number,
    readonly byteOffset: number,
    detail: string,
  ) {
    super(`SSE event ${eventIndex} at byte ${byteOffset}: ${detail}`);
  }
}

export interface StreamWarning {
  code: DecodeErrorCode;
  eventIndex: number;
  byteOffset: number;
  message: string;
}

export interface DecodeOptions {
  /** The largest `data` payload of one event, in bytes (default 16 MiB). */
  maxEventBytes?: number;
  /** `spec` (default): a mismatched `event:` name or a missing `[DONE]` is an error. `lenient`: a warning. */
  profile?: 'spec' | 'lenient';
  onWarning?: (warning: StreamWarning) => void;
}

/** Decoded events, plus whether the stream ended with `data: [DONE]`. */
export interface DecodedEventStream extends AsyncIterable<AnyStreamingEvent> {
  readonly sawDone: boolean;
}

const DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;
const LINE_BREAK = /\r\n|\r|\n/g;

/**
 * Decodes an SSE byte stream into parsed Open Responses events. Handles any chunking (byte by byte,
 * UTF-8 sequences split across chunks, CRLF/CR/LF, a CR at the end of one chunk and LF at the start of
 * the next), joins multi-line `data:`, ignores comments, `id:` and `retry:`, and stops at `[DONE]`.
 */
export function decodeSSE(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>, options: DecodeOptions = {}): DecodedEventStream {
  const state = { sawDone: false };
  return {
    get sawDone() {
      return state.sawDone;
    },
    [Symbol.asyncIterator]: () => decode(body, options, state),
  };
}

async function* decode(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>, options: DecodeOptions, state: { sawDone: boolean }): AsyncGenerator<AnyStreamingEvent> {
  const maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const lenient = options.profile === 'lenient';
  const text = new TextDecoder('utf-8');
  let pending = '';
  let skipLeadingLF = false;
  let offset = 0; // bytes consumed up to the current line
  let eventIndex = 0;
  let eventStart = -1;
  let eventName: string | undefined;
  let data: string[] = [];
  let dataBytes = 0;

  const problem = (code: DecodeErrorCode, message: string) => {
    if (lenient && (code === 'event_type_mismatch' || code === 'missing_done')) {
      options.onWarning?.({ code, eventIndex, byteOffset: Math.max(eventStart, 0), message });
      return;
    }
    throw new SSEDecodeError(code, eventIndex, Math.max(eventStart, 0), message);
  };

  /** Returns the event when a blank line completes one. */
  const line = (content: string, terminatorBytes: number): AnyStreamingEvent | 'done' | undefined => {
    const start = offset;
    offset += utf8Length(content) + terminatorBytes;
    if (content === '') {
      if (data.length === 0) {
        eventName = undefined;
        eventStart = -1;
        return undefined;
      }
      const payload = data.join('\n');
      const name = eventName;
      data = [];
      dataBytes = 0;
      eventName = undefined;
      if (payload === '[DONE]') return 'done';
      const event = parseEvent(payload, name);
      eventIndex++;
      eventStart = -1;
      return event;
    }
    if (content.charCodeAt(0) === 58 /* ':' */) return undefined; // comment
    if (eventStart < 0) eventStart = start;
    const colon = content.indexOf(':');
    const field = colon < 0 ? content : content.slice(0, colon);
    let value = colon < 0 ? '' : content.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') {
      dataBytes += utf8Length(value) + 1;
      if (dataBytes > maxEventBytes) problem('event_too_large', `data exceeds ${maxEventBytes} bytes`);
      data.push(value);
    } else if (field === 'event') {
      eventName = value;
    }
    // `id`, `retry` and unknown fields are ignored, as the SSE standard says.
    return undefined;
  };

  const parseEvent = (payload: string, name: string | undefined): AnyStreamingEvent => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch (error) {
      throw new SSEDecodeError('invalid_json', eventIndex, eventStart, `invalid JSON in data (${(error as Error).message}): ${payload.slice(0, 120)}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || typeof (parsed as { type?: unknown }).type !== 'string') {
      throw new SSEDecodeError('not_an_event', eventIndex, eventStart, `data is not an object with a string "type": ${payload.slice(0, 120)}`);
    }
    const event = parsed as AnyStreamingEvent;
    if (name !== undefined && name !== event.type) problem('event_type_mismatch', `"event: ${name}" does not match the body's type "${event.type}"`);
    return event;
  };

  for await (const chunk of iterate(body)) {
    let chunkText = text.decode(chunk, { stream: true });
    if (skipLeadingLF && chunkText.length > 0) {
      // A CR ended the previous chunk; a LF starting this one belongs to the same line break.
      if (chunkText.charCodeAt(0) === 10) {
        chunkText = chunkText.slice(1);
        offset += 1;
      }
      skipLeadingLF = false;
    }
    pending += chunkText;
    LINE_BREAK.lastIndex = 0;
    let start = 0;
    let match: RegExpExecArray | null;
    while ((match = LINE_BREAK.exec(pending)) !== null) {
      // A CR at the very end may be the first half of a CRLF split across chunks.
      if (match[0] === '\r' && match.index === pending.length - 1) skipLeadingLF = true;
      const result = line(pending.slice(start, match.index), match[0].length);
      start = match.index + match[0].length;
      if (result === 'done') {
        state.sawDone = true;
        return;
      }
      if (result) yield result;
    }
    pending = pending.slice(start);
    if (utf8Length(pending) > maxEventBytes) problem('event_too_large', `a line exceeds ${maxEventBytes} bytes`);
  }
  pending += text.decode();
  // Per the SSE standard an event without its closing blank line is discarded at the end of the stream.
  if (!state.sawDone) problem('missing_done', 'the stream ended without data: [DONE]');
}

async function* iterate(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (!('getReader' in body)) {
    yield* body;
    return;
  }
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Stopping early (at [DONE], on an error, or when the consumer breaks) releases the connection.
    await reader.cancel().catch(() => {});
  }
}

function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 2; // surrogate pair: 4 bytes for 2 units
      i++;
    } else bytes += 2;
  }
  return bytes;
}

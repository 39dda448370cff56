import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createSSEFrameDecoder, createSSEFrameStream, type SSEFrame, SSEFrameError } from '../../src/index.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const plain = (frames: SSEFrame[]) =>
  frames.map(({ event, data, id, byteOffset }) => ({ event, data, id, byteOffset }));

/** Every frame of `text` fed in pieces of `size` bytes (regardless of lines and UTF-8 sequences). */
function framesOf(text: string | Uint8Array, size = Number.POSITIVE_INFINITY, maxFrameBytes?: number) {
  const all = typeof text === 'string' ? bytes(text) : text;
  const decoder = createSSEFrameDecoder({ maxFrameBytes });
  const frames: SSEFrame[] = [];
  for (let i = 0; i < all.length; i += size) frames.push(...decoder.decode(all.subarray(i, i + size)));
  return { frames: plain(frames), end: decoder.end(), comments: decoder.comments, bytesRead: decoder.bytesRead };
}

describe('SSE frame decoder', () => {
  test('frames carry event, data, the last event id and the byte offset where they start', () => {
    const text = 'event: a\ndata: 1\n\nid: 7\ndata: x\ndata: y\n\ndata: é\n\nid\nevent: b\ndata:\n\n';
    expect(framesOf(text).frames).toEqual([
      { event: 'a', data: '1', id: undefined, byteOffset: 0 },
      { event: undefined, data: 'x\ny', id: '7', byteOffset: 18 },
      // The id carries over to later events; é is two bytes.
      { event: undefined, data: 'é', id: '7', byteOffset: 41 },
      // An empty `id` line resets it; an empty `data:` is an event with empty data.
      { event: 'b', data: '', id: '', byteOffset: 51 },
    ]);
    // An id with a NULL in it is ignored, as the standard says.
    expect(framesOf('id: a\ndata: 1\n\nid: b\0c\ndata: 2\n\n').frames.map((f) => f.id)).toEqual(['a', 'a']);
  });

  test('CR, LF and CRLF, split anywhere, and UTF-8 sequences split across chunks give the same frames', () => {
    const text = ': hi\r\nevent: é\rdata: 漢字 🙂\r\ndata: two\n\r\nretry: 5\ndata: [DONE]\r\r';
    const whole = framesOf(text);
    expect(whole.frames).toEqual([
      { event: 'é', data: '漢字 🙂\ntwo', id: undefined, byteOffset: 6 },
      { event: undefined, data: '[DONE]', id: undefined, byteOffset: 47 },
    ]);
    for (let size = 1; size <= 8; size++)
      expect(framesOf(text, size).frames, `chunks of ${size}`).toEqual(whole.frames);
  });

  test('any chunking of any text yields the frames of the whole text (fast-check)', () => {
    const line = fc.oneof(
      fc.constantFrom('', ': keep-alive', 'event: x', 'id: 3', 'retry: 10', 'bogus'),
      fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => `data: ${s.replace(/[\r\n]/g, '')}`),
    );
    const stream = fc.tuple(
      fc.array(fc.tuple(line, fc.constantFrom('\n', '\r', '\r\n')), { maxLength: 30 }),
      fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }),
    );
    fc.assert(
      fc.property(stream, ([lines, sizes]) => {
        const all = bytes(lines.map(([l, br]) => l + br).join(''));
        const whole = framesOf(all);
        const decoder = createSSEFrameDecoder();
        const frames: SSEFrame[] = [];
        for (let i = 0, k = 0; i < all.length; k++) {
          const size = sizes[k % sizes.length]!;
          frames.push(...decoder.decode(all.subarray(i, i + size)));
          i += size;
        }
        expect(plain(frames)).toEqual(whole.frames);
        expect(decoder.end()).toEqual(whole.end);
      }),
      { seed: 25, numRuns: 300 },
    );
  });

  test('comments are counted and reported with their offsets, apart from events', () => {
    const seen: Array<[string, number]> = [];
    const decoder = createSSEFrameDecoder({ onComment: (text, at) => seen.push([text, at]) });
    const frames = decoder.decode(bytes(': keep-alive\n\n:\n\ndata: 1\n\n: ping\n'));
    expect([frames.length, decoder.comments, seen]).toEqual([
      1,
      3,
      [
        [' keep-alive', 0],
        ['', 14],
        [' ping', 26],
      ],
    ]);
  });

  test('a byte order mark at the start is dropped and counts in offsets', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    const all = new Uint8Array([...bom, ...bytes('data: 1\n\n')]);
    expect(framesOf(all, 1).frames).toEqual([{ event: undefined, data: '1', id: undefined, byteOffset: 3 }]);
  });

  test('end() tells whether an event was left unfinished, and where it starts', () => {
    expect(framesOf('data: 1\n\n').end).toEqual({ unfinished: false, byteOffset: 9 });
    expect(framesOf('data: 1\n\ndata: 2\n').end).toEqual({ unfinished: true, byteOffset: 9 });
    expect(framesOf('data: 1\n\ndata: 2').end).toEqual({ unfinished: true, byteOffset: 9 });
  });

  test('a line over the bound is an SSEFrameError at the chunk that crosses it, with nothing kept past it', () => {
    const decoder = createSSEFrameDecoder({ maxFrameBytes: 64 });
    decoder.decode(bytes('data: 1\n\n'));
    // 64 bytes of one unfinished line are kept; one more byte is refused.
    decoder.decode(bytes(`data: ${'x'.repeat(50)}`));
    decoder.decode(bytes('x'.repeat(8)));
    let error: unknown;
    try {
      decoder.decode(bytes('x'));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SSEFrameError);
    expect(error).toMatchObject({ code: 'frame_too_large', byteOffset: 9, limit: 64 });
    // The same in one chunk with its line break, a comment line and an `event:` line included.
    for (const text of [`data: ${'x'.repeat(100)}\n\n`, `: ${'x'.repeat(100)}\n`, `event: ${'x'.repeat(100)}\n`])
      expect(() => framesOf(`data: 1\n\n${text}`, Number.POSITIVE_INFINITY, 64)).toThrow(
        expect.objectContaining({ code: 'frame_too_large', byteOffset: 9 }),
      );
  });

  test('the data of one event is bounded across its lines', () => {
    const text = `${'data: 0123456789\n'.repeat(7)}\n`;
    expect(framesOf(text, 5, 100).frames).toHaveLength(1);
    expect(() => framesOf(`${'data: 0123456789\n'.repeat(10)}\n`, 5, 100)).toThrow(
      expect.objectContaining({ code: 'frame_too_large', byteOffset: 0, detail: 'data exceeds 100 bytes' }),
    );
  });

  test('feed stops at once when the handler returns true', () => {
    const decoder = createSSEFrameDecoder();
    const seen: string[] = [];
    const stopped = decoder.feed(bytes('data: a\n\ndata: b\n\ndata: c\n\n'), (frame) => {
      seen.push(frame.data);
      return frame.data === 'b';
    });
    expect([stopped, seen]).toEqual([true, ['a', 'b']]);
  });

  test('as a TransformStream: bytes in, frames out; the bound errors the stream', async () => {
    const source = (...chunks: string[]) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(bytes(chunk));
          controller.close();
        },
      });
    const readAll = async (stream: ReadableStream<SSEFrame>) => {
      const reader = stream.getReader();
      const out: SSEFrame[] = [];
      for (let next = await reader.read(); !next.done; next = await reader.read()) out.push(next.value);
      return out;
    };
    const frames = await readAll(source('event: a\nda', 'ta: 1\n\n', ': c\n').pipeThrough(createSSEFrameStream()));
    expect(plain(frames)).toEqual([{ event: 'a', data: '1', id: undefined, byteOffset: 0 }]);
    const tooLong = source(`data: ${'x'.repeat(40)}`).pipeThrough(createSSEFrameStream({ maxFrameBytes: 16 }));
    await expect(readAll(tooLong)).rejects.toBeInstanceOf(SSEFrameError);
  });
});

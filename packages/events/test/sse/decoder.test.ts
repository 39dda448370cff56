import { describe, expect, test } from 'vitest';
import { decodeSSE, SSEDecodeError, type StreamWarning } from '../../src/sse/decoder.js';
import { encodeEvent, SSE_DONE, createSSEEncoderStream } from '../../src/sse/encoder.js';
import { createSSEFrameDecoder } from '../../src/sse/frames.js';

const bytes = (text: string) => new TextEncoder().encode(text);
function streamOf(...chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? bytes(chunk) : chunk);
      controller.close();
    },
  });
}
/** A body that sends `first` (if any), then `text` on every read; `state.cancelled` says whether it was cancelled. */
function endless(text: string, first?: string) {
  const state = { cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first !== undefined) controller.enqueue(bytes(first));
    },
    pull(controller) {
      controller.enqueue(bytes(text));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}
async function collect(body: ReadableStream<Uint8Array>, options = {}) {
  const stream = decodeSSE(body, options);
  const events: unknown[] = [];
  for await (const event of stream) events.push(event);
  return { events, sawDone: stream.sawDone };
}

describe('SSE decoder', () => {
  test('decodes what the encoder writes, and stops at [DONE]', async () => {
    const a = { type: 'response.created', sequence_number: 0, text: 'é 😀' };
    const b = { type: 'acme:trace', sequence_number: 1 };
    const { events, sawDone } = await collect(
      streamOf(encodeEvent(a) + encodeEvent(b) + SSE_DONE + encodeEvent({ type: 'ignored' })),
    );
    expect(events).toEqual([a, b]);
    expect(sawDone).toBe(true);
  });

  test('joins multi-line data, ignores comments, id and retry, accepts CR, LF and CRLF', async () => {
    const text =
      ': keep-alive\r\nretry: 1000\r\nid: 7\r\nevent: x\rdata: {"type":\ndata: "x", "n": 1}\r\n\r\ndata: [DONE]\n\n';
    const { events } = await collect(streamOf(text));
    expect(events).toEqual([{ type: 'x', n: 1 }]);
  });

  test('a CR at the end of one chunk and LF at the start of the next are one line break', async () => {
    const { events } = await collect(streamOf('data: {"type":"a"}\r', '\n\r', '\ndata: [DONE]\r\n\r\n'));
    expect(events).toEqual([{ type: 'a' }]);
  });

  test('a byte order mark at the start is dropped, also when its bytes are split, and counts in byte offsets', async () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    const text = bytes('event: a\ndata: {"type":"b"}\n\n');
    const warnings: StreamWarning[] = [];
    const split = streamOf(bom.subarray(0, 1), bom.subarray(1), text);
    // Read as a field named "\uFEFFevent", the event name would be lost and the mismatch unseen.
    await expect(collect(split, { onWarning: (w: StreamWarning) => warnings.push(w) })).rejects.toMatchObject({
      code: 'event_type_mismatch',
      byteOffset: 3,
    });
    expect(warnings).toEqual([]);
    const { events } = await collect(streamOf(bom, 'event: b\ndata: {"type":"b"}\n\ndata: [DONE]\n\n'));
    expect(events).toEqual([{ type: 'b' }]);
    // Only at the start: a later U+FEFF is text.
    const later = await collect(streamOf('data: {"type":"c"}\n\n', bom, 'data: [DONE]\n\n'), { profile: 'lenient' });
    expect(later.events).toEqual([{ type: 'c' }]);
    expect(later.sawDone).toBe(false); // "\uFEFFdata: [DONE]" is an unknown field
  });

  test('UTF-8 sequences split across chunks decode intact', async () => {
    const all = bytes(`data: {"type":"t","s":"日本😀"}\n\ndata: [DONE]\n\n`);
    const chunks = Array.from(all, (b) => new Uint8Array([b]));
    const { events } = await collect(streamOf(...chunks));
    expect(events).toEqual([{ type: 't', s: '日本😀' }]);
  });

  test('invalid UTF-8 becomes U+FFFD as TextDecoder decodes it, however the bytes are cut', async () => {
    // A stray continuation byte, a lead byte followed by ASCII, and a sequence truncated by the event's end.
    const head = bytes('data: {"type":"t","s":"a');
    const tail = bytes('b"}\n\ndata: [DONE]\n\n');
    const all = new Uint8Array([...head, 0x80, 0x41, 0xe6, 0x41, 0xf0, 0x9f, ...tail]);
    const expected = JSON.parse(new TextDecoder().decode(all).split('\n')[0]!.slice(6)) as { s: string };
    expect(expected.s).toContain('\ufffd');
    for (let cut = 1; cut < all.length; cut++) {
      const { events } = await collect(streamOf(all.slice(0, cut), all.slice(cut)));
      expect(events).toEqual([expected]);
    }
  });
  test('invalid JSON names the event index and byte offset', async () => {
    const first = 'data: {"type":"a"}\n\n';
    const error = await collect(streamOf(`${first}data: {oops\n\n`)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SSEDecodeError);
    expect(error).toMatchObject({ code: 'invalid_json', eventIndex: 1, byteOffset: bytes(first).length });
    expect((error as Error).message).toMatch(/^SSE event 1 at byte 20: invalid JSON/);
  });

  test('invalid JSON in an event:/data: block names its index and offset, however the blocks are cut', async () => {
    const good = 'event: a\ndata: {"type":"a"}\n\n'.repeat(3);
    const all = bytes(`${good}event: b\ndata: {oops\n\n`);
    for (let cut = 1; cut < all.length; cut += 7) {
      await expect(collect(streamOf(all.slice(0, cut), all.slice(cut)))).rejects.toMatchObject({
        code: 'invalid_json',
        eventIndex: 3,
        byteOffset: bytes(good).length,
      });
    }
  });

  test('byte offsets count UTF-8 bytes, also when a character is split across chunks', async () => {
    const first = bytes('event: a\ndata: {"type":"a","t":"日本😀"}\n\n');
    const all = new Uint8Array([...first, ...bytes('data: {oops\n\n')]);
    const split = first.indexOf(0xe6) + 1; // inside 日
    for (const cuts of [[split], [split, split + 1], [first.length - 2], [3, split, first.length + 4]]) {
      const pieces = [0, ...cuts, all.length]
        .slice(1)
        .map((end, k, ends) => all.slice(k === 0 ? 0 : ends[k - 1]!, end));
      await expect(collect(streamOf(...pieces))).rejects.toMatchObject({
        code: 'invalid_json',
        eventIndex: 1,
        byteOffset: first.length,
      });
    }
  });

  test('an oversized event is refused with a clear error', async () => {
    const big = `data: {"type":"a","x":"${'y'.repeat(2000)}"}\n\n`;
    await expect(collect(streamOf(big), { maxEventBytes: 1024 })).rejects.toMatchObject({
      code: 'event_too_large',
      eventIndex: 0,
    });
  });

  test('event: must match the body type (an error in spec, a warning in lenient)', async () => {
    const text = 'event: response.completed\ndata: {"type":"response.created"}\n\ndata: [DONE]\n\n';
    await expect(collect(streamOf(text))).rejects.toMatchObject({ code: 'event_type_mismatch' });
    const warnings: StreamWarning[] = [];
    const { events } = await collect(streamOf(text), {
      profile: 'lenient',
      onWarning: (w: StreamWarning) => warnings.push(w),
    });
    expect(events).toHaveLength(1);
    expect(warnings.map((w) => w.code)).toEqual(['event_type_mismatch']);
  });

  // After an event of a spec type, a block starting `event: <that type>` LF `data: ` is taken by comparing its
  // bytes with that start's; one character off anywhere in it (the name, a field name, the line break), the
  // block is read as written: its events and warnings are those of its frames split by the generic decoder.
  test('a block start one character off the expected one is read as written', async () => {
    // The longest spec type: its block start spans every word the decoder compares.
    const type = 'response.reasoning_summary_part.added';
    const start = `event: ${type}\ndata: `;
    const data = (n: number) => `${JSON.stringify({ type, sequence_number: n })}\n\n`;
    for (let i = 0; i < start.length; i++) {
      // A tab for a space keeps `data:`'s value JSON (leading whitespace) and makes `event:`'s another name.
      const other = start[i] === ' ' ? '\t' : start[i] === 'x' ? 'y' : 'x';
      const changed = `${start.slice(0, i)}${other}${start.slice(i + 1)}`;
      const text = `${start}${data(0)}${changed}${data(1)}${start}${data(2)}${SSE_DONE}`;
      const expected: unknown[] = [];
      const expectedWarnings: string[] = [];
      for (const frame of createSSEFrameDecoder().decode(bytes(text))) {
        if (frame.data === '[DONE]') break;
        const event = JSON.parse(frame.data) as { type: string };
        if (frame.event === undefined) expectedWarnings.push('missing_event_field');
        else if (frame.event !== event.type) expectedWarnings.push('event_type_mismatch');
        expected.push(event);
      }
      const warnings: string[] = [];
      const { events } = await collect(streamOf(text), {
        profile: 'lenient',
        onWarning: (w: StreamWarning) => warnings.push(w.code),
      });
      expect({ changed, events, warnings }).toEqual({ changed, events: expected, warnings: expectedWarnings });
    }
  });

  test('a missing [DONE] is an error in spec, a warning in lenient', async () => {
    await expect(collect(streamOf('data: {"type":"a"}\n\n'))).rejects.toMatchObject({ code: 'missing_done' });
    const warnings: StreamWarning[] = [];
    const { events, sawDone } = await collect(streamOf('event: a\ndata: {"type":"a"}\n\n'), {
      profile: 'lenient',
      onWarning: (w: StreamWarning) => warnings.push(w),
    });
    expect([events.length, sawDone, warnings.map((w) => w.code)]).toEqual([1, false, ['missing_done']]);
  });

  test('an oversized line that never ends names the offset where its event starts', async () => {
    const first = 'data: {"type":"a"}\n\n';
    const error = await collect(streamOf(first, `data: {"type":"b","x":"${'y'.repeat(2000)}`), {
      maxEventBytes: 1024,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'event_too_large', eventIndex: 1, byteOffset: bytes(first).length });
  });

  test('a decode error cancels the body', async () => {
    const { body, state } = endless('data: {oops\n\n');
    await expect(collect(body)).rejects.toMatchObject({ code: 'invalid_json' });
    expect(state.cancelled).toBe(true);
  });

  test('data-only events (no event: field) decode, with one warning per stream', async () => {
    const warnings: StreamWarning[] = [];
    const first = 'data: {"type":"a"}\n\n';
    const { events } = await collect(streamOf(`${first}data: {"type":"b"}\n\ndata: [DONE]\n\n`), {
      onWarning: (w: StreamWarning) => warnings.push(w),
    });
    expect(events).toEqual([{ type: 'a' }, { type: 'b' }]);
    expect(warnings).toEqual([expect.objectContaining({ code: 'missing_event_field', eventIndex: 0, byteOffset: 0 })]);
  });

  test('data that is not an event object is refused', async () => {
    await expect(collect(streamOf('data: [1,2]\n\n'))).rejects.toMatchObject({ code: 'not_an_event' });
  });

  test('stopping early cancels the body', async () => {
    const { body, state } = endless('data: {"type":"a"}\n\n');
    for await (const _ of decodeSSE(body)) break;
    expect(state.cancelled).toBe(true);
  });

  test('batches() hands out the events each chunk completes, one array per chunk that completes any', async () => {
    const a = encodeEvent({ type: 'a' });
    const b = encodeEvent({ type: 'b' });
    const c = encodeEvent({ type: 'c' });
    const stream = decodeSSE(streamOf(a + b + c.slice(0, 5), c.slice(5, 9), c.slice(9) + SSE_DONE));
    const batches: unknown[] = [];
    for await (const batch of stream.batches()) batches.push(batch);
    expect(batches).toEqual([[{ type: 'a' }, { type: 'b' }], [{ type: 'c' }]]);
    expect(stream.sawDone).toBe(true);
  });

  test('batches() raises the decode errors the events iterator raises, and cancels the body', async () => {
    const { body, state } = endless('data: {oops\n\n', 'data: {"type":"a"}\n\n');
    const seen: unknown[] = [];
    const reading = (async () => {
      for await (const batch of decodeSSE(body).batches()) seen.push(...batch);
    })();
    await expect(reading).rejects.toMatchObject({ code: 'invalid_json', eventIndex: 1, byteOffset: 20 });
    expect([seen, state.cancelled]).toEqual([[{ type: 'a' }], true]);
    await expect(
      (async () => {
        for await (const _ of decodeSSE(streamOf('data: {"type":"a"}\n\n')).batches());
      })(),
    ).rejects.toMatchObject({ code: 'missing_done' });
  });

  test('stopping early in batches() cancels the body', async () => {
    const { body, state } = endless('data: {"type":"a"}\n\n');
    for await (const _ of decodeSSE(body).batches()) break;
    expect(state.cancelled).toBe(true);
  });

  test('the encoder stream appends [DONE]', async () => {
    const encoder = createSSEEncoderStream();
    const writer = encoder.writable.getWriter();
    void writer.write({ type: 'a' }).then(() => writer.close());
    const { events, sawDone } = await collect(encoder.readable);
    expect([events, sawDone]).toEqual([[{ type: 'a' }], true]);
  });
});

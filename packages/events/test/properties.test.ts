// Property tests: any stream the writer builds passes the checker and accumulates to its terminal
// response, which an unwatched writer (no onEvent) given the same calls makes byte for byte without events;
// every random mutation of such a stream is caught; the decoder yields the same events for
// every chunking (and line-break style) of the same bytes.
import type { ResponseResource } from '@openresponses/types';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { countingWriter, recordingWriter } from './__fixtures__/responses.js';
import { createAccumulator } from '../src/accumulator/accumulator.js';
import { checkStream } from '../src/checker/checker.js';
import type { AnyStreamingEvent } from '../src/events.js';
import type { StreamWriter } from '../src/writer/writer.js';
import { decodeSSE, SSEDecodeError, type StreamWarning } from '../src/sse/decoder.js';
import { createSSEFrameDecoder } from '../src/sse/frames.js';
import { encodeEvent, encodeEventJSON, SSE_DONE } from '../src/sse/encoder.js';

const chunks = fc.array(fc.string({ minLength: 1, maxLength: 6, unit: 'grapheme' }), { minLength: 1, maxLength: 4 });
const item = fc.oneof(
  fc.record({
    kind: fc.constant('message' as const),
    parts: fc.array(fc.record({ refusal: fc.boolean(), chunks, annotate: fc.boolean(), logprobs: fc.boolean() }), {
      minLength: 1,
      maxLength: 2,
    }),
  }),
  fc.record({ kind: fc.constant('call' as const), name: fc.constantFrom('get_weather', 'search'), chunks }),
  fc.record({
    kind: fc.constant('reasoning' as const),
    summaries: fc.array(chunks, { maxLength: 2 }),
    content: fc.option(chunks, { nil: undefined }),
    encrypted: fc.boolean(),
  }),
);
/** A vendor item (the spec-exact checker refuses its type: only the unwatched writer's test uses it). */
const vendorItem = fc.record({
  kind: fc.constant('vendor item' as const),
  fields: fc.dictionary(fc.string(), fc.jsonValue()),
});
const programOf = <T>(items: fc.Arbitrary<T>) =>
  fc.record({
    items: fc.array(items, { minLength: 1, maxLength: 4 }),
    vendorEvents: fc.boolean(),
    ending: fc.constantFrom('complete' as const, 'incomplete' as const, 'fail' as const),
  });
const program = programOf(item);
type Program = typeof programWithVendorItems extends fc.Arbitrary<infer T> ? T : never;
const programWithVendorItems = programOf(fc.oneof(item, vendorItem));

function build(p: Program, onEvent?: (event: AnyStreamingEvent) => void): AnyStreamingEvent[] {
  const { writer, events } = recordingWriter(onEvent);
  drive(writer, p);
  return events;
}

/** Makes the program's calls on `writer`; answers what the call that ended the response returned. */
function drive(writer: StreamWriter, p: Program): ResponseResource {
  writer.start();
  p.items.forEach((spec, index) => {
    // The incomplete ending leaves the last item open, as a model cut off by max_output_tokens does.
    const leaveOpen = p.ending === 'incomplete' && index === p.items.length - 1;
    if (p.vendorEvents) writer.emitVendorEvent({ type: 'acme:progress', step: index });
    if (spec.kind === 'message') {
      const message = writer.addMessage();
      spec.parts.forEach((partSpec, partIndex) => {
        const part = partSpec.refusal ? message.addRefusal() : message.addOutputText();
        for (const chunk of partSpec.chunks)
          if (partSpec.logprobs && !partSpec.refusal)
            part.append(chunk, [{ token: chunk, logprob: -0.5, bytes: [1, 2], top_logprobs: [] }]);
          else part.append(chunk);
        if (partSpec.annotate && !partSpec.refusal)
          part.annotate({
            type: 'url_citation',
            start_index: 0,
            end_index: 1,
            url: 'https://example.test',
            title: 't',
          });
        if (!(leaveOpen && partIndex === spec.parts.length - 1)) part.done();
      });
      if (!leaveOpen) message.done();
    } else if (spec.kind === 'call') {
      const call = writer.addFunctionCall({ name: spec.name, call_id: `call_${index}` });
      for (const chunk of spec.chunks) call.appendArguments(chunk);
      if (!leaveOpen) call.done();
    } else if (spec.kind === 'vendor item') {
      const vendor = writer.addItem({ ...spec.fields, type: 'acme:search_result', id: `acme_${index}` });
      if (!leaveOpen) vendor.done({ hits: index });
    } else {
      const reasoning = writer.addReasoning();
      for (const summary of spec.summaries) {
        const part = reasoning.addSummaryPart();
        for (const chunk of summary) part.append(chunk);
        part.done();
      }
      for (const chunk of spec.content ?? []) reasoning.appendContent(chunk);
      if (!leaveOpen) reasoning.done(spec.encrypted ? { encrypted_content: 'enc' } : {});
    }
  });
  const usage: Partial<ResponseResource> = {
    usage: {
      input_tokens: 3,
      output_tokens: 5,
      total_tokens: 8,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
  if (p.ending === 'complete') return writer.complete(usage);
  if (p.ending === 'incomplete') return writer.incomplete('max_output_tokens', usage);
  return writer.fail({ type: 'model_error', code: 'model_failed', message: 'failed on request' }, usage);
}

const runs = { numRuns: 150, seed: 424242 };

describe('writer-built streams', () => {
  test('pass the checker and accumulate to the terminal response', () => {
    fc.assert(
      fc.property(program, (p) => {
        const events = build(p);
        expect(checkStream(events, { sawDone: true })).toEqual([]);
        const accumulator = createAccumulator();
        for (const event of events) accumulator.push(event);
        expect(accumulator.response).toEqual((events.at(-1) as { response: unknown }).response);
      }),
      runs,
    );
  });

  test('an unwatched writer makes the same final response, byte for byte, without events', () => {
    fc.assert(
      fc.property(programWithVendorItems, (p) => {
        const watched = recordingWriter();
        const unwatched = countingWriter();
        const watchedEnd = JSON.stringify(drive(watched.writer, p));
        const unwatchedEnd = JSON.stringify(drive(unwatched, p));
        expect(unwatchedEnd).toBe(watchedEnd);
        expect(JSON.stringify(unwatched.response)).toBe(JSON.stringify(watched.writer.response));
        expect(JSON.stringify((watched.events.at(-1) as { response: unknown }).response)).toBe(watchedEnd);
      }),
      runs,
    );
  });

  test('never change an event after sending it (the writer shares no state it later mutates)', () => {
    fc.assert(
      fc.property(program, (p) => {
        const asSent: string[] = [];
        const events = build(p, (event) => asSent.push(JSON.stringify(event)));
        expect(events.map((event) => JSON.stringify(event))).toEqual(asSent);
      }),
      runs,
    );
  });

  type Mutation = { kind: 'swap' | 'drop' | 'duplicate' | 'renumber' | 'corrupt-delta'; at: number };
  const mutate = (events: AnyStreamingEvent[], m: Mutation): AnyStreamingEvent[] | undefined => {
    const copy = events.map((e) => structuredClone(e));
    const i = m.at % copy.length;
    switch (m.kind) {
      case 'swap':
        if (i + 1 >= copy.length) return undefined;
        [copy[i], copy[i + 1]] = [copy[i + 1]!, copy[i]!];
        return copy;
      case 'drop':
        // in_progress, vendor events and the error before response.failed are optional; dropping them is no violation.
        if (['response.in_progress', 'error'].includes(copy[i]!.type) || copy[i]!.type.includes(':')) return undefined;
        copy.splice(i, 1);
        return copy;
      case 'duplicate':
        copy.splice(i, 0, structuredClone(copy[i]!));
        return copy;
      case 'renumber':
        if (i === 0) return undefined;
        copy[i] = { ...copy[i]!, sequence_number: copy[i - 1]!.sequence_number } as AnyStreamingEvent;
        return copy;
      case 'corrupt-delta': {
        const index = copy.findIndex((e, k) => k >= i && typeof (e as { delta?: unknown }).delta === 'string');
        if (index < 0) return undefined;
        copy[index] = {
          ...copy[index]!,
          delta: `${(copy[index] as unknown as { delta: string }).delta}#`,
        } as AnyStreamingEvent;
        return copy;
      }
    }
  };

  test('every mutation is caught', () => {
    const mutation = fc.record({
      kind: fc.constantFrom(
        'swap' as const,
        'drop' as const,
        'duplicate' as const,
        'renumber' as const,
        'corrupt-delta' as const,
      ),
      at: fc.nat(),
    });
    let checked = 0;
    fc.assert(
      fc.property(program, mutation, (p, m) => {
        const mutated = mutate(build(p), m);
        if (!mutated) return;
        checked++;
        const errors = checkStream(mutated, { sawDone: true }).filter((v) => v.severity === 'error');
        expect(errors.length, `${m.kind} at ${m.at} went unnoticed`).toBeGreaterThan(0);
      }),
      { ...runs, numRuns: 400 },
    );
    expect(checked).toBeGreaterThan(200);
  });
});

describe('accumulator', () => {
  // output_text.delta takes a fast path (named loads); the rule it must keep is the general one that the
  // other deltas use: append to the part at output[output_index].content[content_index] when that is an
  // object, start `content` as [] on an item without an array there, and skip everything else.
  test('text deltas change the snapshot as the general rule does, whatever shape the output has', () => {
    const part = fc.oneof(
      fc.record({ type: fc.constant('output_text'), text: fc.string() }),
      fc.record({ type: fc.constant('output_text') }),
      fc.record({ text: fc.oneof(fc.constant(null), fc.integer()) }),
      fc.constant(null),
      fc.string(),
      fc.integer(),
    );
    const outputItem = fc.oneof(
      fc.record({ type: fc.constant('message'), content: fc.array(part, { maxLength: 3 }) }),
      fc.record({ type: fc.constant('message') }),
      fc.record({ type: fc.constant('message'), content: fc.oneof(fc.string(), fc.constant(null)) }),
      fc.constant(null),
      fc.integer(),
    );
    const delta = fc.record({
      output_index: fc.nat(3),
      content_index: fc.nat(3),
      delta: fc.string(),
      logprobs: fc.option(
        fc.array(fc.record({ token: fc.string(), logprob: fc.double({ noNaN: true }) }), { maxLength: 2 }),
        { nil: undefined },
      ),
    });
    fc.assert(
      fc.property(fc.array(outputItem, { maxLength: 3 }), fc.array(delta, { maxLength: 12 }), (output, deltas) => {
        const accumulator = createAccumulator();
        accumulator.push({ type: 'response.created', sequence_number: 0, response: { id: 'r', output } } as never);
        const expected = structuredClone(output) as unknown[];
        for (const [i, d] of deltas.entries()) {
          accumulator.push({ type: 'response.output_text.delta', sequence_number: i + 1, item_id: 'm', ...d } as never);
          const item = expected[d.output_index];
          if (typeof item !== 'object' || item === null) continue;
          const owner = item as Record<string, unknown>;
          if (!Array.isArray(owner.content)) owner.content = [];
          const target = (owner.content as unknown[])[d.content_index];
          if (typeof target !== 'object' || target === null) continue;
          const text = target as Record<string, unknown>;
          text.text = `${text.text ?? ''}${d.delta}`;
          if (d.logprobs?.length)
            text.logprobs = [...(Array.isArray(text.logprobs) ? text.logprobs : []), ...d.logprobs];
        }
        expect(accumulator.response?.output).toEqual(expected);
      }),
      runs,
    );
  });
});

describe('SSE encoder', () => {
  test("an event's JSON made already frames as the event does; a type with a line break is refused", () => {
    fc.assert(
      fc.property(program, (p) => {
        for (const event of build(p)) {
          const text = encodeEventJSON(event.type, JSON.stringify(event));
          expect(text).toBe(encodeEvent(event));
          expect(text.startsWith(`event: ${event.type}\ndata: {`)).toBe(true);
        }
      }),
      runs,
    );
    expect(() => encodeEventJSON('response.created\ndata: {}', '{}')).toThrow(TypeError);
    expect(() => encodeEvent({ type: 'a\rb' })).toThrow(/single-line/);
  });

  test('a type is refused exactly when it has a line break, whatever was encoded before it', () => {
    // The encoder skips the search for the type it last passed: types that differ from it only in a line
    // break, or follow it in any order, are still each searched.
    const type = fc.oneof(
      fc.constantFrom('response.output_text.delta', 'response.output_text.delta\n', 'a', '\ra', 'a\r\n', ''),
      fc.string({ maxLength: 6, unit: fc.constantFrom('a', '\n', '\r', '.') }),
    );
    fc.assert(
      fc.property(fc.array(type, { maxLength: 12 }), (types) => {
        for (const t of types) {
          const broken = t.includes('\n') || t.includes('\r');
          if (broken) expect(() => encodeEventJSON(t, '{}')).toThrow(TypeError);
          else expect(encodeEventJSON(t, '{}')).toBe(`event: ${t}\ndata: {}\n\n`);
        }
      }),
      runs,
    );
  });
});

/** `bytes` cut at the given points (taken modulo its length), as a body would deliver them. */
function cutAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % bytes.length))].sort((a, b) => a - b);
  return [0, ...points, bytes.length].slice(1).map((end, k, all) => bytes.slice(k === 0 ? 0 : all[k - 1]!, end));
}

describe('SSE decoder', () => {
  test('yields the same events for every chunking and line-break style of the same stream', async () => {
    await fc.assert(
      fc.asyncProperty(
        program,
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        async (p, cuts, newline) => {
          const events = build(p);
          const text = (events.map(encodeEvent).join('') + SSE_DONE).replace(/\n/g, newline);
          const bytes = new TextEncoder().encode(text);
          const pieces = cutAt(bytes, cuts);
          const decoded: unknown[] = [];
          const stream = decodeSSE(
            (async function* () {
              yield* pieces;
            })(),
          );
          for await (const event of stream) decoded.push(event);
          expect(decoded).toEqual(events);
          expect(stream.sawDone).toBe(true);
          // The same bytes read in batches: the same events, no batch empty.
          const batched = decodeSSE(
            (async function* () {
              yield* pieces;
            })(),
          );
          const batches: (readonly unknown[])[] = [];
          for await (const batch of batched.batches()) batches.push(batch);
          expect(batches.flat()).toEqual(events);
          expect(batches.every((batch) => batch.length > 0)).toBe(true);
          expect(batched.sawDone).toBe(true);
        },
      ),
      { ...runs, numRuns: 100 },
    );
  });

  // decodeSSE takes a block whose name it expects (the previous event's spec type) by one match and hands
  // that name out as the same string; the frames must be those the generic decoder splits, named as there.
  test('events, warnings and errors are those of the generic frames checked one by one (random names)', async () => {
    const type = fc.constantFrom(
      'response.output_text.delta',
      'response.output_text.deltb',
      'response.output_text.delta2',
      'response.output_text_delta',
      'acme:progress',
    );
    const block = fc.record({
      type,
      name: fc.oneof(
        { arbitrary: fc.constant('its type'), weight: 3 },
        { arbitrary: fc.constant('none'), weight: 1 },
        { arbitrary: type, weight: 2 },
      ),
      extra: fc.constantFrom('', 'id: 7\n', ': keep\n', 'retry: 1\n'),
      extraBetween: fc.boolean(),
      text: fc.string({ maxLength: 4, unit: 'grapheme' }),
      // Runs of one block, as streams send them: the expected name is armed by the first.
      repeat: fc.integer({ min: 1, max: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(block, { minLength: 1, maxLength: 16 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.constantFrom('spec' as const, 'lenient' as const),
        async (blocks, cuts, profile) => {
          const text =
            blocks
              .map((b) => {
                const name = b.name === 'its type' ? b.type : b.name === 'none' ? undefined : b.name;
                const nameLine = name === undefined ? '' : `event: ${name}\n`;
                const data = `data: ${JSON.stringify({ type: b.type, text: b.text })}\n\n`;
                return (b.extraBetween ? nameLine + b.extra + data : b.extra + nameLine + data).repeat(b.repeat);
              })
              .join('') + SSE_DONE;
          const bytes = new TextEncoder().encode(text);
          const pieces = cutAt(bytes, cuts);
          // The oracle: the generic decoder's frames, each name compared with its body's type.
          const expected: unknown[] = [];
          const expectedWarnings: Array<Pick<StreamWarning, 'code' | 'eventIndex' | 'byteOffset'>> = [];
          let expectedError: Pick<SSEDecodeError, 'code' | 'eventIndex' | 'byteOffset'> | undefined;
          let named = true;
          for (const frame of createSSEFrameDecoder().decode(bytes)) {
            if (frame.data === '[DONE]') break;
            const event = JSON.parse(frame.data) as { type: string };
            const at = { eventIndex: expected.length, byteOffset: frame.byteOffset };
            if (frame.event !== undefined && frame.event !== event.type) {
              if (profile === 'spec') {
                expectedError = { code: 'event_type_mismatch', ...at };
                break;
              }
              expectedWarnings.push({ code: 'event_type_mismatch', ...at });
            } else if (frame.event === undefined && named) {
              named = false;
              expectedWarnings.push({ code: 'missing_event_field', ...at });
            }
            expected.push(event);
          }
          const decoded: unknown[] = [];
          const warnings: typeof expectedWarnings = [];
          let error: typeof expectedError;
          try {
            for await (const event of decodeSSE(
              (async function* () {
                yield* pieces;
              })(),
              {
                profile,
                onWarning: ({ code, eventIndex, byteOffset }) => warnings.push({ code, eventIndex, byteOffset }),
              },
            ))
              decoded.push(event);
          } catch (caught) {
            if (!(caught instanceof SSEDecodeError)) throw caught;
            error = { code: caught.code, eventIndex: caught.eventIndex, byteOffset: caught.byteOffset };
          }
          expect(error).toEqual(expectedError);
          expect(warnings).toEqual(expectedWarnings);
          expect(decoded).toEqual(expected.slice(0, decoded.length));
          if (!expectedError) expect(decoded).toEqual(expected);
        },
      ),
      { ...runs, numRuns: 300 },
    );
  });

  test('byte-by-byte delivery decodes the same events', async () => {
    const events = build({
      items: [
        { kind: 'message', parts: [{ refusal: false, chunks: ['日本', '😀 ok'], annotate: false, logprobs: false }] },
      ],
      vendorEvents: true,
      ending: 'complete',
    });
    const bytes = new TextEncoder().encode(events.map(encodeEvent).join('') + SSE_DONE);
    const decoded: unknown[] = [];
    for await (const event of decodeSSE(
      (async function* () {
        for (const b of bytes) yield new Uint8Array([b]);
      })(),
    ))
      decoded.push(event);
    expect(decoded).toEqual(events);
  });
});

// What the upstream fuzz tests share: an upstream answer as a web Response delivered in pieces split
// anywhere (then ended, or broken), one turn through a real service, and the checks on what it served.
import { checkStream, createSSEFrameDecoder } from '@openresponses/events';
import fc from 'fast-check';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import type { ResponsesService } from '../src/index.js';

/** How an upstream stream ends: whole, cut (the body ends early), or broken (the connection fails). */
export type StreamEnd = 'whole' | 'cut' | 'broken';
export const streamEnd = fc.constantFrom<StreamEnd>('whole', 'whole', 'whole', 'whole', 'cut', 'broken');
/** Where the body's bytes are split into reads (any byte, UTF-8 sequences included). */
export const splits = fc.array(fc.nat(), { maxLength: 6 });

/** Text an upstream streams: plain, any grapheme, or pieces of JSON. */
export const text = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ maxLength: 4, unit: 'grapheme' }),
  fc.constantFrom('', ' ', 'Hello', '{"a":'),
);

/** A value of another type than expected (or an odd one of the same type). */
export const wrongValue = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
  fc.array(fc.integer(), { maxLength: 2 }),
);

/** `body` as an upstream's answer: its bytes in pieces cut at `at`, then the end (a broken one fails the read). */
export function upstreamAnswer(body: string, end: StreamEnd, at: number[], contentType: string): Response {
  const bytes = new TextEncoder().encode(body);
  const cuts = [...new Set(at.map((s) => s % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces = [0, ...cuts, bytes.length].flatMap((offset, i, all) =>
    i === 0 || offset === all[i - 1] ? [] : [bytes.subarray(all[i - 1]!, offset)],
  );
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < pieces.length) controller.enqueue(pieces[next++]!);
      else if (end === 'broken') controller.error(new Error('connection reset'));
      else controller.close();
    },
  });
  return new Response(stream, { status: 200, headers: { 'content-type': contentType } });
}

/** One `POST /v1/responses` through the service; the answer as text. */
export async function serveTurn(
  service: ResponsesService,
  body: Record<string, unknown>,
): Promise<{ status: number; contentType: string; text: string }> {
  const response = await service.handle({
    method: 'POST',
    path: '/v1/responses',
    header: (name) => (name === 'content-type' ? 'application/json' : null),
    text: async () => JSON.stringify(body),
  });
  let text = '';
  if (typeof response.body === 'string') text = response.body;
  else if (response.body)
    await response.body.pipe((chunk) => {
      text += typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk);
    });
  return { status: response.status, contentType: response.headers['content-type'] ?? '', text };
}

/** A spec error body: the four fields, a 5xx only for the gateway's or the model's failures (never a bug). */
export function expectSpecError(status: number, text: string): void {
  const { error } = JSON.parse(text) as { error: Record<string, unknown> };
  expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(typeof error.message).toBe('string');
  if (status >= 500) {
    expect(['model_error', 'server_error']).toContain(error.type);
    expect(error.code).not.toBe('internal_error');
  }
}

/**
 * An SSE answer the stream checker accepts to its end ([DONE] included), ending failed only with an error
 * object, and never with invalid_model_stream (the provider handed the turn parts out of order).
 */
export function expectValidStream(text: string): void {
  const events: unknown[] = [];
  let sawDone = false;
  createSSEFrameDecoder().feed(new TextEncoder().encode(text), (frame) => {
    if (frame.data === '[DONE]') sawDone = true;
    else events.push(JSON.parse(frame.data));
    return undefined;
  });
  const violations = checkStream(events, { sawDone }).filter((v) => v.severity === 'error');
  expect(violations).toEqual([]);
  const last = events.at(-1) as { type: string; response: { error: { code?: unknown } | null } };
  expect(last.response.error?.code).not.toBe('invalid_model_stream');
  if (last.type === 'response.failed')
    expect(last.response.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
}

/** What the server logs as unexpected (console.error) during each test of the file: expected to stay empty. */
export function watchUnexpected(): unknown[] {
  const logged: unknown[] = [];
  beforeEach(() => {
    logged.length = 0;
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      logged.push(args);
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  return logged;
}

// The served-stream check of the test harness fails loudly: a broken stream, served through its
// middleware, is reported (and would fail the test it was served in), a valid one is not.
import { encodeEvent, SSE_DONE } from '@openresponses/events';
import { describe, expect, test } from 'vitest';
import type { ServiceRequest, ServiceResponse } from '../src/index.js';
import { checkServedStreams, takeBrokenStreams } from './served-streams.js';

function request(path: string): ServiceRequest {
  return { method: 'POST', path, header: () => null, text: async () => '' };
}

/** Serves `frames` (SSE text) through the check; returns what it reported. */
async function serve(path: string, frames: string[]): Promise<string[]> {
  const answer: ServiceResponse = {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8' },
    body: {
      pipe: async (write) => {
        for (const frame of frames) write(frame);
      },
    },
  };
  const served = await checkServedStreams()(request(path), async () => answer);
  let written = '';
  await (served.body as { pipe: (write: (chunk: string) => void) => Promise<void> }).pipe((chunk) => {
    written += chunk;
  });
  expect(written).toBe(frames.join(''));
  return takeBrokenStreams();
}

const response = { id: 'resp_1', object: 'response', created_at: 1, status: 'in_progress', output: [] };

describe('the served-stream check', () => {
  test('a Responses stream without its terminal event is reported; so is a gap in sequence numbers', async () => {
    const created = encodeEvent({ type: 'response.created', sequence_number: 0, response } as never);
    const problems = await serve('/v1/responses', [created, SSE_DONE]);
    expect(problems.join('\n')).toContain('[missing-terminal]');
    const gap = await serve('/v1/responses', [
      created,
      encodeEvent({ type: 'response.in_progress', sequence_number: 5, response } as never),
    ]);
    expect(gap.join('\n')).toContain('[sequence-number-gap]');
    expect(gap.join('\n')).toContain('[missing-done]');
  });

  test('legacy chunks: a chunk that breaks the wire schema, and a stream without [DONE], are reported', async () => {
    const chunk = (delta: unknown) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
    expect(await serve('/v1/chat/completions', [chunk({ content: 'hi' }), SSE_DONE])).toEqual([]);
    const problems = await serve('/v1/chat/completions', [chunk({ content: 7 })]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('breaks the wire schema');
    expect(problems[1]).toContain('without data: [DONE]');
  });
});

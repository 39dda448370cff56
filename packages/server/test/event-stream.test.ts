import { type AnyStreamingEvent, encodeEvent, SSE_DONE, startingResponse } from '@openresponses/events';
import { describe, expect, test } from 'vitest';
import type { ServiceEventStream } from '../src/exchange.js';
import { eventStream } from '../src/handler/event-stream.js';

/** What `eventStream` writes for `events` (each with the JSON given beside it, if any). */
async function served(events: Array<[AnyStreamingEvent, string?]>): Promise<string> {
  let text = '';
  const body = eventStream(async (write) => {
    for (const [event, json] of events) write(event, json);
  }).body as ServiceEventStream;
  await body.pipe((chunk) => {
    text += String(chunk);
  });
  return text;
}
const framed = (events: AnyStreamingEvent[]) => events.map(encodeEvent).join('') + SSE_DONE;
const lifecycle = (type: string, sequence: number, response: object) =>
  ({ type, sequence_number: sequence, response }) as unknown as AnyStreamingEvent;

describe('eventStream', () => {
  // response.in_progress reuses response.created's JSON when it carries the same object: the text must be
  // what encodeEvent makes of each event, whichever objects they carry.
  test('serves each event as encodeEvent frames it, a response carried twice serialized once', async () => {
    const first = startingResponse({ model: 'm', instructions: 'a "quoted"\n line \u2028', metadata: { k: 'v' } });
    const other = { ...first, model: 'another', status: 'in_progress' };
    const delta = {
      type: 'response.output_text.delta',
      sequence_number: 2,
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: 'Hi',
      logprobs: [],
    } as unknown as AnyStreamingEvent;
    const cases: AnyStreamingEvent[][] = [
      [lifecycle('response.created', 0, first), lifecycle('response.in_progress', 1, first), delta],
      // Another object (with other fields) after created: serialized for itself.
      [lifecycle('response.created', 0, first), lifecycle('response.in_progress', 1, other)],
      // The same object again later, after other events: serialized for itself too.
      [lifecycle('response.created', 0, first), delta, lifecycle('response.completed', 3, first)],
      [lifecycle('response.in_progress', 0, first), lifecycle('response.in_progress', 1, first)],
      [lifecycle('response.created', 0, other), lifecycle('response.created', 1, first)],
    ];
    for (const events of cases) expect(await served(events.map((e) => [e]))).toBe(framed(events));
  });

  test('an event whose JSON is given is framed from it', async () => {
    const response = startingResponse({ model: 'm' });
    const created = lifecycle('response.created', 0, response);
    const completed = lifecycle('response.completed', 1, { ...response, status: 'completed' });
    expect(await served([[created], [completed, JSON.stringify(completed)]])).toBe(framed([created, completed]));
  });
});

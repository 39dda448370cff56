// The accumulator against hand-written events (not writer output), checked after each event, plus the
// broken inputs real peers send: it must keep going rather than throw.
import { describe, expect, test } from 'vitest';
import { startingResponse } from '../__fixtures__/responses.js';
import type { AnyStreamingEvent } from '../../src/events.js';
import { createAccumulator } from '../../src/accumulator/accumulator.js';

const created = (sequence_number = 0) =>
  ({ type: 'response.created', sequence_number, response: startingResponse() }) as AnyStreamingEvent;
const at = { item_id: 'msg_1', output_index: 0 };

function fold(events: unknown[], options?: Parameters<typeof createAccumulator>[0]) {
  const accumulator = createAccumulator(options);
  for (const event of events) accumulator.push(event as AnyStreamingEvent);
  return accumulator;
}

describe('accumulator', () => {
  test('text deltas, an annotation and the done text build the message part by part', () => {
    const accumulator = createAccumulator();
    const snapshots: unknown[] = [];
    const events = [
      created(),
      {
        type: 'response.output_item.added',
        sequence_number: 1,
        output_index: 0,
        item: { type: 'message', id: 'msg_1', role: 'assistant', status: 'in_progress', content: [] },
      },
      {
        type: 'response.content_part.added',
        sequence_number: 2,
        ...at,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      },
      { type: 'response.output_text.delta', sequence_number: 3, ...at, content_index: 0, delta: 'Bonjour ' },
      { type: 'response.output_text.delta', sequence_number: 4, ...at, content_index: 0, delta: 'à tous' },
      {
        type: 'response.output_text.annotation.added',
        sequence_number: 5,
        ...at,
        content_index: 0,
        annotation_index: 0,
        annotation: { type: 'url_citation', url: 'https://example.test', start_index: 0, end_index: 7, title: 'Ex' },
      },
    ] as AnyStreamingEvent[];
    for (const event of events) snapshots.push(structuredClone(accumulator.push(event)?.output));
    expect(snapshots[2]).toEqual([
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'in_progress',
        content: [{ type: 'output_text', text: '', annotations: [] }],
      },
    ]);
    expect(snapshots[3]).toMatchObject([{ content: [{ text: 'Bonjour ' }] }]);
    expect(snapshots[4]).toMatchObject([{ content: [{ text: 'Bonjour à tous' }] }]);
    expect(snapshots[5]).toMatchObject([
      { content: [{ text: 'Bonjour à tous', annotations: [{ url: 'https://example.test', end_index: 7 }] }] },
    ]);
  });

  test('the snapshot it returns is a copy: mutating a pushed event later does not change it', () => {
    const event = created();
    const accumulator = fold([event]);
    (event as { response: { model: string } }).response.model = 'changed';
    expect(accumulator.response?.model).toBe('test-model');
  });

  test('function call arguments, refusals, reasoning summaries and raw reasoning accumulate', () => {
    const accumulator = fold([
      created(),
      {
        type: 'response.output_item.added',
        sequence_number: 1,
        output_index: 0,
        item: { type: 'reasoning', id: 'rs_1', summary: [] },
      },
      {
        type: 'response.reasoning_summary_part.added',
        sequence_number: 2,
        item_id: 'rs_1',
        output_index: 0,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      },
      {
        type: 'response.reasoning_summary_text.delta',
        sequence_number: 3,
        item_id: 'rs_1',
        output_index: 0,
        summary_index: 0,
        delta: 'Look up ',
      },
      {
        type: 'response.reasoning_summary_text.delta',
        sequence_number: 4,
        item_id: 'rs_1',
        output_index: 0,
        summary_index: 0,
        delta: 'weather',
      },
      // Raw reasoning without content_part.added, and under the peer name some servers use.
      {
        type: 'response.reasoning_text.delta',
        sequence_number: 5,
        item_id: 'rs_1',
        output_index: 0,
        content_index: 0,
        delta: 'user wants ',
      },
      {
        type: 'response.reasoning.delta',
        sequence_number: 6,
        item_id: 'rs_1',
        output_index: 0,
        content_index: 0,
        delta: 'Paris',
      },
      {
        type: 'response.output_item.added',
        sequence_number: 7,
        output_index: 1,
        item: {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call_1',
          name: 'get_weather',
          arguments: '',
          status: 'in_progress',
        },
      },
      {
        type: 'response.function_call_arguments.delta',
        sequence_number: 8,
        item_id: 'fc_1',
        output_index: 1,
        delta: '{"city":',
      },
      {
        type: 'response.function_call_arguments.delta',
        sequence_number: 9,
        item_id: 'fc_1',
        output_index: 1,
        delta: '"Paris"}',
      },
      {
        type: 'response.output_item.added',
        sequence_number: 10,
        output_index: 2,
        item: { type: 'message', id: 'msg_2', role: 'assistant', status: 'in_progress', content: [] },
      },
      {
        type: 'response.content_part.added',
        sequence_number: 11,
        item_id: 'msg_2',
        output_index: 2,
        content_index: 0,
        part: { type: 'refusal', refusal: '' },
      },
      {
        type: 'response.refusal.delta',
        sequence_number: 12,
        item_id: 'msg_2',
        output_index: 2,
        content_index: 0,
        delta: 'I cannot ',
      },
      {
        type: 'response.refusal.delta',
        sequence_number: 13,
        item_id: 'msg_2',
        output_index: 2,
        content_index: 0,
        delta: 'help.',
      },
    ]);
    expect(accumulator.response?.output).toEqual([
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'Look up weather' }],
        content: [{ type: 'reasoning_text', text: 'user wants Paris' }],
      },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_1',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
        status: 'in_progress',
      },
      {
        type: 'message',
        id: 'msg_2',
        role: 'assistant',
        status: 'in_progress',
        content: [{ type: 'refusal', refusal: 'I cannot help.' }],
      },
    ]);
  });

  test('status and usage come from the lifecycle events; errors are collected', () => {
    const usage = {
      input_tokens: 3,
      output_tokens: 0,
      total_tokens: 3,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    };
    const error = { type: 'model_error', code: 'model_failed', message: 'boom', param: null };
    const accumulator = fold([
      created(),
      { type: 'response.in_progress', sequence_number: 1, response: startingResponse() },
      { type: 'error', sequence_number: 2, error },
      {
        type: 'response.failed',
        sequence_number: 3,
        response: startingResponse({ status: 'failed', usage, error: { code: 'model_failed', message: 'boom' } }),
      },
    ]);
    expect(accumulator.response).toMatchObject({ status: 'failed', usage, error: { code: 'model_failed' } });
    expect(accumulator.errors).toEqual([error]);
  });

  test('the terminal response wins over the streamed items when it has output', () => {
    const final = {
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'final', annotations: [] }],
    };
    const accumulator = fold([
      created(),
      {
        type: 'response.output_item.added',
        sequence_number: 1,
        output_index: 0,
        item: { ...final, status: 'in_progress', content: [] },
      },
      {
        type: 'response.completed',
        sequence_number: 2,
        response: startingResponse({ status: 'completed', output: [final as never] }),
      },
    ]);
    expect(accumulator.response?.output).toEqual([final]);
  });

  test('vendor events go to their registered fold; unknown and unregistered ones leave the snapshot alone', () => {
    const accumulator = fold(
      [
        created(),
        { type: 'acme:progress', sequence_number: 1, percent: 50 },
        { type: 'other:thing', sequence_number: 2 },
        { type: 'response.brand_new_event', sequence_number: 3, output_index: 0 },
      ],
      {
        folds: {
          'acme:progress': (response, event) =>
            void (response.metadata = { progress: String((event as Record<string, unknown>).percent) }),
        },
      },
    );
    expect(accumulator.response).toEqual(startingResponse({ metadata: { progress: '50' } }));
  });

  test('broken peer input is skipped, not thrown on', () => {
    const broken: unknown[] = [
      // Everything before any response exists.
      { type: 'response.output_text.delta', sequence_number: 0, ...at, content_index: 0, delta: 'early' },
      { type: 'response.created', sequence_number: 1 },
      { type: 'response.in_progress', sequence_number: 2, response: null },
      created(3),
      // Events naming items and parts that were never added.
      {
        type: 'response.output_text.delta',
        sequence_number: 4,
        item_id: 'msg_9',
        output_index: 9,
        content_index: 0,
        delta: 'lost',
      },
      {
        type: 'response.function_call_arguments.delta',
        sequence_number: 5,
        item_id: 'fc_9',
        output_index: 7,
        delta: '{}',
      },
      {
        type: 'response.reasoning_summary_text.delta',
        sequence_number: 6,
        item_id: 'rs_9',
        output_index: 8,
        summary_index: 2,
        delta: 'x',
      },
      { type: 'response.output_item.added', sequence_number: 7, output_index: 0, item: null },
      // Terminal events without a response, or with one that has no output.
      { type: 'response.completed', sequence_number: 8 },
      { type: 'response.incomplete', sequence_number: 9, response: { ...startingResponse(), output: undefined } },
    ];
    const accumulator = createAccumulator();
    for (const event of broken) expect(() => accumulator.push(event as AnyStreamingEvent)).not.toThrow();
    expect(accumulator.response?.output).toEqual([]);
    expect(accumulator.response?.id).toBe('resp_test');
  });
});

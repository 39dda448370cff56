import { describe, expect, test } from 'vitest';
import { createAccumulator } from '../../src/accumulator/accumulator.js';
import { checkStream } from '../../src/checker/checker.js';
import { recordingWriter } from '../__fixtures__/responses.js';
import { StreamOrderError } from '../../src/writer/writer.js';

const record = recordingWriter;

describe('stream writer', () => {
  test('reasoning, a message with an annotation, and a function call make a clean stream', () => {
    const { writer, events } = record();
    writer.start();
    const reasoning = writer.addReasoning();
    const summary = reasoning.addSummaryPart();
    summary.append('Plan: ');
    summary.append('answer, then call.');
    summary.done();
    reasoning.appendContent('thinking…');
    reasoning.done({ encrypted_content: 'opaque' });
    const message = writer.addMessage({ phase: 'final_answer' });
    const text = message.addOutputText();
    text.append('Hello ');
    text.append('world');
    text.annotate({
      type: 'url_citation',
      start_index: 0,
      end_index: 5,
      url: 'https://example.test',
      title: 'Example',
    });
    text.done();
    message.done();
    const call = writer.addFunctionCall({ name: 'get_weather', call_id: 'call_1' });
    call.appendArguments('{"city":');
    call.appendArguments('"Paris"}');
    call.done();
    const final = writer.complete({
      usage: {
        input_tokens: 3,
        output_tokens: 5,
        total_tokens: 8,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 1 },
      },
    });

    expect(checkStream(events, { sawDone: true })).toEqual([]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0]!.type).toBe('response.created');
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(final.status).toBe('completed');
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call']);
    const accumulator = createAccumulator();
    for (const event of events) accumulator.push(event);
    expect(accumulator.response).toEqual((events.at(-1) as { response: unknown }).response);
    expect(final.output[1]).toMatchObject({
      status: 'completed',
      content: [{ type: 'output_text', text: 'Hello world', annotations: [{ url: 'https://example.test' }] }],
    });
    expect(final.output[2]).toMatchObject({ arguments: '{"city":"Paris"}', status: 'completed' });
    expect(final.output[0]).toMatchObject({
      encrypted_content: 'opaque',
      summary: [{ type: 'summary_text', text: 'Plan: answer, then call.' }],
      content: [{ text: 'thinking…' }],
    });
  });

  test('a finished item, its parts and the final output are kept as sent, not copied again', () => {
    const { writer, events } = record();
    writer.start();
    const message = writer.addMessage();
    const text = message.addOutputText();
    text.append('Hello');
    text.done();
    message.done();
    const final = writer.complete();
    type Sent = { response: { output: unknown }; item: unknown; part: unknown };
    const sent = (type: string) => events.find((e) => e.type === type) as unknown as Sent;
    expect(final.output).toBe(sent('response.completed').response.output);
    expect(final.output[0]).toBe(sent('response.output_item.done').item);
    expect((final.output[0] as { content: unknown[] }).content[0]).toBe(sent('response.content_part.done').part);
    // Shared only once final: the items and parts sent while open are the events' own.
    expect(final.output[0]).not.toBe(sent('response.output_item.added').item);
    expect(sent('response.content_part.added').part).toEqual({
      type: 'output_text',
      text: '',
      annotations: [],
      logprobs: [],
    });
    expect(checkStream(events, { sawDone: true })).toEqual([]);
  });

  test('incomplete closes the open part and item as incomplete', () => {
    const { writer, events } = record();
    writer.start();
    const text = writer.addMessage().addOutputText();
    text.append('cut o');
    const final = writer.incomplete('max_output_tokens');
    expect(final.status).toBe('incomplete');
    expect(final.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(final.output[0]).toMatchObject({ status: 'incomplete', content: [{ text: 'cut o' }] });
    expect(checkStream(events, { sawDone: true })).toEqual([]);
  });

  test('fail emits error, then response.failed carrying the error', () => {
    const { writer, events } = record();
    writer.start();
    writer.fail({ type: 'model_error', code: 'model_failed', message: 'boom' });
    expect(events.slice(-2).map((e) => e.type)).toEqual(['error', 'response.failed']);
    expect((events.at(-1) as { response: { error: unknown } }).response.error).toEqual({
      code: 'model_failed',
      message: 'boom',
    });
    expect(checkStream(events, { sawDone: true })).toEqual([]);
  });

  test('invalid orders throw', () => {
    const { writer } = record();
    expect(() => writer.addMessage()).toThrow(StreamOrderError);
    writer.start();
    expect(() => writer.start()).toThrow(/twice/);
    const message = writer.addMessage();
    expect(() => writer.addFunctionCall({ name: 'f', call_id: 'c' })).toThrow(/still open/);
    const part = message.addOutputText();
    expect(() => message.addOutputText()).toThrow(/still open/);
    expect(() => message.done()).toThrow(/still open/);
    expect(() => writer.complete()).toThrow(/still open/);
    part.done();
    expect(() => part.append('late')).toThrow(/after the part was done/);
    message.done();
    expect(() => message.done()).toThrow(/already done/);
    expect(() => writer.emitVendorEvent({ type: 'nocolon' as `${string}:${string}` })).toThrow(/slug prefix/);
    // The checker would call this type unknown, so the writer must not send it.
    expect(() => writer.emitVendorEvent({ type: 'acme: trace event' })).toThrow(/slug prefix/);
    writer.complete();
    expect(() => writer.addMessage()).toThrow(/after the response ended/);
  });
});

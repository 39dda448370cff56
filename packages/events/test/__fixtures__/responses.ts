import type { ResponseResource } from '@openresponses/types';
import type { AnyStreamingEvent } from '../../src/events.js';
import { startingResponse as start } from '../../src/writer/starting-response.js';
import { createStreamWriter, type StreamWriter } from '../../src/writer/writer.js';

/** The tests' starting response: fixed id and time, so recorded streams are stable. */
export function startingResponse(overrides: Partial<ResponseResource> = {}): ResponseResource {
  return start({ id: 'resp_test', created_at: 1_769_990_400, model: 'test-model', ...overrides });
}

/** A writer with counting ids and a fixed clock, and the events it has sent so far. */
export function recordingWriter(onEvent?: (event: AnyStreamingEvent) => void): {
  writer: StreamWriter;
  events: AnyStreamingEvent[];
} {
  const events: AnyStreamingEvent[] = [];
  const writer = countingWriter((event) => {
    events.push(event);
    onEvent?.(event);
  });
  return { writer, events };
}

/** A writer with counting ids and a fixed clock; unwatched (it builds no events) without `onEvent`. */
export function countingWriter(onEvent?: (event: AnyStreamingEvent) => void): StreamWriter {
  let n = 0;
  return createStreamWriter({
    response: startingResponse(),
    onEvent,
    ids: { message: () => `msg_${n++}`, functionCall: () => `fc_${n++}`, reasoning: () => `rs_${n++}` },
    now: () => 1_769_990_500,
  });
}

/** A message "Hello" (two deltas) at output_index 0, a function call at 1, response.completed. */
export function helloAndCall(): AnyStreamingEvent[] {
  const { writer, events } = recordingWriter();
  writer.start();
  const message = writer.addMessage();
  const text = message.addOutputText();
  text.append('Hel');
  text.append('lo');
  text.done();
  message.done();
  const call = writer.addFunctionCall({ name: 'get_weather', call_id: 'call_1' });
  call.appendArguments('{}');
  call.done();
  writer.complete();
  return events;
}

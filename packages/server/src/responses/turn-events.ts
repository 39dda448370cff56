// A watched turn's events on their way out: checked, renamed or lifted (`emitter`), and the terminal events
// of a stored turn (its JSON made from the stored text; the failure events when it could not be stored).
import { type AnyStreamingEvent, createStreamChecker } from '@openresponses/events';
import type { Registry } from '@openresponses/extensions';
import type { ResponseResource } from '@openresponses/types';
import type { SpecVersion } from '@openresponses/zod';
import type { ResponsesError } from '../errors.js';
import { openAIEventNames } from './compat.js';
import { failedResponse } from './store-failure.js';
import { liftEvents } from './turn/superset-egress.js';
import type { PreparedTurn } from './turn/prepare.js';
import type { TurnEventSink } from './runner.js';

/**
 * Where a watched turn's events go: checked (with `validateOutgoing`), renamed (`compatibility: 'openai'`) or
 * lifted to superset shapes, then to `onEvent`. Made only for a turn someone listens to.
 */
export function emitter(
  onEvent: TurnEventSink | undefined,
  prepared: PreparedTurn,
  version: SpecVersion,
  options: { validateOutgoing?: boolean; registry?: Registry; compatibility?: 'openai' },
): (event: AnyStreamingEvent, json?: string) => void {
  const checker = options.validateOutgoing
    ? (options.registry?.createStreamChecker() ?? createStreamChecker({ specVersion: version }))
    : undefined;
  const rename = options.compatibility === 'openai' ? openAIEventNames() : undefined;
  // The turn runs and is checked and stored in spec shapes; a superset turn's events are lifted last.
  const lift = prepared.superset ? liftEvents(prepared.superset) : undefined;
  const send = (event: AnyStreamingEvent, json?: string) => {
    const outgoing = rename ? rename(event) : event;
    if (outgoing) onEvent!(outgoing, outgoing === event ? json : undefined);
  };
  return (event, json) => {
    if (checker) {
      const violations = checker.push(event).filter((v) => v.severity === 'error');
      if (violations.length > 0)
        throw new Error(`Server bug: an outgoing event breaks the stream rules: ${JSON.stringify(violations)}`);
    }
    if (!onEvent) return;
    if (lift) for (const lifted of lift(event)) send(lifted);
    else send(event, json);
  };
}

/** Stands for the response in a terminal event's JSON until its text takes the place (no event field can hold it). */
const RESPONSE_MARK = '\u0000response\u0000';
const RESPONSE_MARK_JSON = JSON.stringify(RESPONSE_MARK);

/**
 * `JSON.stringify(event)` of an event carrying a response, given that response's JSON, without serializing the
 * response again. A terminal event carries the writer's final response and the turn's result is the
 * accumulator's copy of it (the same fields in the same order), so the stored text is its text: the stream ends
 * with what GET answers (test/serialize-once.test.ts). response.in_progress reuses response.created's
 * (handler/event-stream.ts). The event's other fields keep their places.
 */
export function terminalEventJson(event: AnyStreamingEvent, responseJson: string): string {
  return JSON.stringify({ ...event, response: RESPONSE_MARK }).replace(RESPONSE_MARK_JSON, () => responseJson);
}

/** The events that end a stream whose response could not be stored, in place of its last event. */
export function failedInstead(last: AnyStreamingEvent, failure: ResponsesError): AnyStreamingEvent[] {
  const { sequence_number, response } = last as unknown as { sequence_number: number; response: ResponseResource };
  const error = { type: failure.type, code: failure.code, message: failure.message, param: failure.param };
  return [
    { type: 'error', sequence_number, error } as unknown as AnyStreamingEvent,
    {
      type: 'response.failed',
      sequence_number: sequence_number + 1,
      response: failedResponse(response, failure),
    } as unknown as AnyStreamingEvent,
  ];
}

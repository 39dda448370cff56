import { StreamingEventSchema, validate } from '@openresponses/zod';
import type { ResponseResource } from '@openresponses/types';
import { createAccumulator, type AccumulatorOptions } from '../accumulator/accumulator.js';
import { type AnyStreamingEvent, isStreamingEventType, isVendorType, PEER_EVENT_ALIASES } from '../events.js';

/** Every rule the checker enforces, with the spec text it comes from. */
export const STREAM_RULES = {
  schema: 'Every event is valid for the schema of its type.',
  'unknown-event-type': 'Event types are the spec’s or slug-prefixed vendor types.',
  'peer-event-name': 'A known peer variant of a spec event name (lenient profile only).',
  'first-event': 'The first event is response.created.',
  'duplicate-created': 'response.created is sent once.',
  'sequence-number-missing': 'Every event carries a sequence_number.',
  'sequence-number-order': 'sequence_number strictly increases.',
  'sequence-number-gap': 'sequence_number increases by exactly one, so that clients can detect gaps.',
  'in-progress-missing': 'response.in_progress follows response.created before any other event of the response.',
  'output-index-contiguous': 'Output items are added at output_index 0, 1, 2, … in order.',
  'item-not-added': 'An event names an output item only after response.output_item.added for it.',
  'item-added-twice': 'Each output_index is added once.',
  'item-id-mismatch': 'An event’s item_id is the id of the item at its output_index.',
  'item-id-changed': 'An item keeps its id from response.output_item.added to response.output_item.done.',
  'item-status':
    'Every item carries a status: output_item.added shows it in progress, output_item.done in a terminal status.',
  'event-after-item-done': 'No event names an item after its response.output_item.done.',
  'part-not-added': 'Deltas and .done events of a content part follow its content_part.added.',
  'part-added-twice': 'Each content part is added once.',
  'event-after-part-done': 'No event names a content part after its content_part.done.',
  'part-not-done': 'Every content part is closed (content_part.done) before its item is done.',
  'text-done-missing':
    'Streamed text (content, summary, reasoning, function arguments) ends with its .done event before its part or item is done.',
  'delta-after-done': 'No delta follows the .done event of the same text.',
  'delta-sum': 'The concatenated deltas equal the text of the .done event and of the final item.',
  'item-not-done': 'Every output item is done before response.completed or response.incomplete.',
  'incomplete-item-last': 'An item that ends incomplete is the last item.',
  'incomplete-item-response': 'An item that ends incomplete makes the response incomplete.',
  'terminal-status': 'The terminal event’s response status matches it (completed, incomplete, failed).',
  'terminal-output-mismatch': 'The terminal response’s output equals the streamed items.',
  'missing-terminal': 'Exactly one terminal event (completed, incomplete or failed) ends the stream.',
  'event-after-terminal': 'Nothing but [DONE] follows the terminal event.',
  'error-then-failed': 'An error event is followed by response.failed.',
  'failed-error': 'response.failed carries a response whose error is an object with a code and a message.',
  'vendor-event-outside-response': 'Vendor events are sent only while the response is in progress.',
  'vendor-event-shape': 'Vendor events carry a type and an integer sequence_number.',
  'missing-done': 'The stream ends with data: [DONE].',
} as const;

export type StreamRule = keyof typeof STREAM_RULES;

export interface Violation {
  rule: StreamRule;
  /** Index of the offending event in the stream (the stream length for end-of-stream rules). */
  eventIndex: number;
  message: string;
  severity: 'error' | 'warning';
}

export interface StreamCheckerOptions {
  /**
   * `spec` (default): exactly the spec. `lenient`: accepts known peer variants (`response.reasoning_text.*`,
   * missing sequence_number, missing [DONE]) and reports them as warnings.
   */
  profile?: 'spec' | 'lenient';
  /** Validate each event against the spec-exact Zod schema (default true). */
  validateSchemas?: boolean;
  /** Vendor folds for the internal accumulator (registered by `@openresponses/extensions`). */
  accumulator?: AccumulatorOptions;
  /** The schema events are validated with (default: the spec-exact StreamingEventSchema); extensions pass their extended union. */
  eventSchema?: Parameters<typeof validate>[0];
  /** Validates registered vendor events (from `@openresponses/extensions`): a message when invalid. */
  validateVendorEvent?: (event: Record<string, unknown>) => string | undefined;
}

export interface StreamChecker {
  /** Checks one event; returns the violations it caused. */
  push(event: unknown): Violation[];
  /** Checks the end of the stream. */
  end(options?: { sawDone?: boolean }): Violation[];
  readonly violations: readonly Violation[];
  /** The response rebuilt from the events so far. */
  readonly response: ResponseResource | undefined;
}

interface TextState {
  deltas: string;
  doneText?: string;
  done: boolean;
}
interface ItemState {
  id: string | undefined;
  type: string;
  done: boolean;
  parts: Map<number, TextState & { kind: string }>;
  summaries: Map<number, TextState>;
  reasoning: Map<number, TextState>;
  args?: TextState;
}

type Event = Record<string, unknown> & { type: string };

/** The event that must end the streamed text of each content-part kind before content_part.done. */
const TEXT_DONE_EVENT: Readonly<Record<string, string>> = {
  output_text: 'response.output_text.done',
  refusal: 'response.refusal.done',
  reasoning_text: 'response.reasoning.done',
};

/** Checks a stream against the spec's ordering rules, event by event. */
export function createStreamChecker(options: StreamCheckerOptions = {}): StreamChecker {
  const lenient = options.profile === 'lenient';
  const validateSchemas = options.validateSchemas ?? true;
  const accumulator = createAccumulator(options.accumulator);
  const violations: Violation[] = [];
  const items = new Map<number, ItemState>();
  let index = -1;
  let started = false;
  let terminal: string | undefined;
  let lastSequence: number | undefined;
  let pendingError: number | undefined;
  let incompleteItem: number | undefined;
  let nextOutputIndex = 0;
  let inProgressChecked = false;

  const push = (raw: unknown): Violation[] => {
    index++;
    const found: Violation[] = [];
    const report = (rule: StreamRule, message: string, severity: Violation['severity'] = 'error') => {
      const violation = { rule, eventIndex: index, message, severity };
      found.push(violation);
      violations.push(violation);
    };
    if (typeof raw !== 'object' || raw === null || typeof (raw as Event).type !== 'string') {
      report('schema', 'not an object with a string "type"');
      return found;
    }
    let event = raw as Event;
    // Sequence numbers, for every event including vendor ones. An event that breaks a rule still takes the
    // next slot, so that one bad event is reported once and not again as a gap at the next one.
    const sequence = event.sequence_number;
    if (typeof sequence !== 'number') {
      report('sequence-number-missing', `${event.type} has no sequence_number`, lenient ? 'warning' : 'error');
      if (lenient) event = { ...event, sequence_number: (lastSequence ?? -1) + 1 };
      lastSequence = (lastSequence ?? -1) + 1;
    } else if (lastSequence !== undefined && sequence <= lastSequence) {
      report('sequence-number-order', `sequence_number ${sequence} does not follow ${lastSequence}`);
      lastSequence++;
    } else {
      if (lastSequence !== undefined && sequence > lastSequence + 1)
        report(
          'sequence-number-gap',
          `sequence_number ${sequence} follows ${lastSequence}: ${sequence - lastSequence - 1} missing`,
          lenient ? 'warning' : 'error',
        );
      lastSequence = sequence;
    }

    const alias = PEER_EVENT_ALIASES[event.type];
    if (alias) {
      if (lenient) {
        report('peer-event-name', `"${event.type}" is a peer variant of "${alias}"`, 'warning');
        event = { ...event, type: alias };
      } else {
        report('unknown-event-type', `"${event.type}" is not a spec event type (the spec name is "${alias}")`);
        return found;
      }
    }
    const type = event.type;
    const vendor = isVendorType(type);
    if (!isStreamingEventType(type) && !vendor) {
      report(
        'unknown-event-type',
        `"${type}" is neither a spec event type nor slug-prefixed (acme:thing)`,
        lenient ? 'warning' : 'error',
      );
      return found;
    }

    if (validateSchemas && !vendor) {
      // A missing sequence_number is reported once, by its own rule.
      const result = validate(
        options.eventSchema ?? StreamingEventSchema,
        typeof event.sequence_number === 'number' ? event : { ...event, sequence_number: index },
      );
      if (!result.success) {
        const issue = result.issues[0]!;
        report('schema', `${type}: ${issue.path ? `${issue.path}: ` : ''}${issue.message}`);
      }
    }
    if (vendor && !Number.isInteger(event.sequence_number))
      report('vendor-event-shape', `${type} needs an integer sequence_number`);
    const vendorProblem = vendor ? options.validateVendorEvent?.(event) : undefined;
    if (vendorProblem) report('vendor-event-shape', `${type}: ${vendorProblem}`);

    if (index === 0 && type !== 'response.created')
      report('first-event', `the first event is ${type}, not response.created`);
    if (terminal) report('event-after-terminal', `${type} after ${terminal}`);
    if (started && !inProgressChecked && !vendor) {
      // The response moves to in_progress before anything happens in it, and the move is announced.
      inProgressChecked = true;
      if (type !== 'response.in_progress')
        report(
          'in-progress-missing',
          `${type} follows response.created without response.in_progress`,
          lenient ? 'warning' : 'error',
        );
    }
    if (vendor) {
      if (!started || terminal) report('vendor-event-outside-response', `${type} outside the response's lifetime`);
      accumulator.push(event as AnyStreamingEvent);
      return found;
    }
    if (pendingError !== undefined && type !== 'response.failed') {
      report('error-then-failed', `the error event at ${pendingError} is followed by ${type}, not response.failed`);
      pendingError = undefined;
    }

    checkOrdering(event, report);
    accumulator.push(event as AnyStreamingEvent);
    return found;
  };

  const itemFor = (event: Event, report: (rule: StreamRule, message: string) => void): ItemState | undefined => {
    const outputIndex = event.output_index as number;
    const item = items.get(outputIndex);
    if (!item) {
      report('item-not-added', `${event.type} names output_index ${outputIndex}, which was never added`);
      return undefined;
    }
    if (item.done)
      report('event-after-item-done', `${event.type} for output_index ${outputIndex} after its output_item.done`);
    if (typeof event.item_id === 'string' && item.id !== undefined && event.item_id !== item.id) {
      report('item-id-mismatch', `item_id ${event.item_id} but output_index ${outputIndex} is ${item.id}`);
    }
    return item;
  };

  const text = (
    map: Map<number, TextState> | undefined,
    key: number,
    event: Event,
    report: (rule: StreamRule, message: string) => void,
    mustBeAdded: boolean,
  ): TextState | undefined => {
    if (!map) return undefined;
    let state = map.get(key);
    if (!state) {
      if (mustBeAdded) {
        report(
          'part-not-added',
          `${event.type} for part ${key} of output_index ${event.output_index as number} before it was added`,
        );
        return undefined;
      }
      state = { deltas: '', done: false };
      map.set(key, state);
    }
    if (state.done) report('event-after-part-done', `${event.type} for part ${key} after it was done`);
    return state;
  };

  const delta = (
    state: TextState | undefined,
    value: unknown,
    event: Event,
    report: (rule: StreamRule, message: string) => void,
  ) => {
    if (!state || typeof value !== 'string') return;
    if (state.doneText !== undefined) report('delta-after-done', `${event.type} after the text was done`);
    state.deltas += value;
  };
  const finish = (
    state: TextState | undefined,
    value: unknown,
    event: Event,
    report: (rule: StreamRule, message: string) => void,
  ) => {
    if (!state || typeof value !== 'string') return;
    if (state.deltas !== value)
      report(
        'delta-sum',
        `${event.type}: the deltas add up to ${JSON.stringify(clip(state.deltas))}, the done text is ${JSON.stringify(clip(value))}`,
      );
    state.doneText = value;
  };

  /** Raw reasoning is streamable content, so a content part must back it; some peers skip it (a warning in lenient). */
  const requireReasoningPart = (
    state: ItemState,
    event: Event,
    report: (rule: StreamRule, message: string, severity?: Violation['severity']) => void,
  ) => {
    const key = event.content_index as number;
    if (state.reasoning.has(key) || state.parts.has(key)) return; // reported once, at the first event of the part
    report(
      'part-not-added',
      `${event.type} for reasoning content ${key} of output_index ${event.output_index as number} without content_part.added`,
      lenient ? 'warning' : 'error',
    );
  };

  const checkOrdering = (
    event: Event,
    report: (rule: StreamRule, message: string, severity?: Violation['severity']) => void,
  ) => {
    switch (event.type) {
      case 'response.created':
        if (started) report('duplicate-created', 'a second response.created');
        started = true;
        return;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        terminal = event.type;
        pendingError = undefined;
        const response = event.response as ResponseResource | undefined;
        if (event.type === 'response.failed' && response) {
          const error = response.error as { code?: unknown; message?: unknown } | null | undefined;
          if (!error || typeof error.code !== 'string' || typeof error.message !== 'string')
            report('failed-error', `response.failed carries error ${JSON.stringify(error ?? null)}`);
        }
        const expected = event.type.slice('response.'.length);
        if (response && response.status !== expected)
          report('terminal-status', `${event.type} carries a response with status "${response.status}"`);
        if (incompleteItem !== undefined && event.type === 'response.completed') {
          report(
            'incomplete-item-response',
            `output_index ${incompleteItem} ended incomplete, but the response completed`,
          );
        }
        // A failed response may leave items open; its output must still be what was streamed.
        if (event.type !== 'response.failed') {
          for (const [outputIndex, item] of items)
            if (!item.done) report('item-not-done', `output_index ${outputIndex} was never done`);
        }
        const mismatch = firstDifference(accumulator.response?.output ?? [], response?.output ?? []);
        if (mismatch)
          report(
            'terminal-output-mismatch',
            `the terminal response's output differs from the streamed items: ${mismatch}`,
          );
        return;
      }
      case 'response.output_item.added': {
        const outputIndex = event.output_index as number;
        if (outputIndex !== nextOutputIndex)
          report('output-index-contiguous', `output_index ${outputIndex} added, expected ${nextOutputIndex}`);
        if (items.has(outputIndex)) report('item-added-twice', `output_index ${outputIndex} added twice`);
        if (incompleteItem !== undefined)
          report('incomplete-item-last', `an item was added after output_index ${incompleteItem} ended incomplete`);
        const item = (event.item ?? {}) as Record<string, unknown>;
        if (typeof item.status !== 'string')
          report('item-status', `the item added at output_index ${outputIndex} has no status`);
        items.set(outputIndex, {
          id: item.id as string | undefined,
          type: String(item.type),
          done: false,
          parts: new Map(),
          summaries: new Map(),
          reasoning: new Map(),
        });
        nextOutputIndex = Math.max(nextOutputIndex, outputIndex + 1);
        return;
      }
      case 'response.output_item.done': {
        const state = itemFor(event, report);
        if (!state) return;
        const item = (event.item ?? {}) as Record<string, unknown>;
        if (state.id !== undefined && item.id !== state.id)
          report(
            'item-id-changed',
            `output_index ${event.output_index as number} was added as ${state.id} and is done as ${String(item.id)}`,
          );
        if (typeof item.status !== 'string' || item.status === 'in_progress')
          report(
            'item-status',
            `the item done at output_index ${event.output_index as number} has status ${JSON.stringify(item.status ?? null)}`,
          );
        for (const [key, part] of state.parts)
          if (!part.done)
            report(
              'part-not-done',
              `content part ${key} of output_index ${event.output_index as number} was never done`,
            );
        for (const [key, part] of state.summaries)
          if (!part.done)
            report(
              'part-not-done',
              `summary part ${key} of output_index ${event.output_index as number} was never done`,
            );
        for (const [key, part] of state.reasoning)
          if (part.doneText === undefined)
            report('text-done-missing', `reasoning content ${key} has deltas but no response.reasoning.done`);
        if (state.args && state.args.doneText === undefined)
          report(
            'text-done-missing',
            'function call arguments have deltas but no response.function_call_arguments.done',
          );
        if (
          state.args &&
          typeof item.arguments === 'string' &&
          state.args.deltas !== '' &&
          state.args.deltas !== item.arguments
        ) {
          report(
            'delta-sum',
            `function_call arguments deltas ${JSON.stringify(clip(state.args.deltas))} differ from the final ${JSON.stringify(clip(item.arguments))}`,
          );
        }
        const content = Array.isArray(item.content) ? (item.content as Array<Record<string, unknown>>) : [];
        for (const [key, part] of state.parts) {
          const final = content[key]?.text ?? content[key]?.refusal;
          if (part.doneText !== undefined && typeof final === 'string' && final !== part.doneText) {
            report('delta-sum', `content part ${key}: the final item text differs from its .done text`);
          }
        }
        state.done = true;
        if (item.status === 'incomplete') incompleteItem = event.output_index as number;
        return;
      }
      case 'response.content_part.added': {
        const state = itemFor(event, report);
        if (!state) return;
        const key = event.content_index as number;
        if (state.parts.has(key))
          report('part-added-twice', `content part ${key} of output_index ${event.output_index as number} added twice`);
        state.parts.set(key, {
          kind: String((event.part as Record<string, unknown> | undefined)?.type),
          deltas: '',
          done: false,
        });
        return;
      }
      case 'response.content_part.done': {
        const state = itemFor(event, report);
        const part = state && text(state.parts, event.content_index as number, event, report, true);
        if (!part) return;
        const kind = (part as TextState & { kind: string }).kind;
        const doneEvent = Object.hasOwn(TEXT_DONE_EVENT, kind) ? TEXT_DONE_EVENT[kind] : undefined;
        // Raw reasoning text is tracked by its own events (response.reasoning.*), the other kinds on the part.
        const streamed = kind === 'reasoning_text' ? state.reasoning.get(event.content_index as number) : part;
        if (doneEvent && streamed?.doneText === undefined)
          report('text-done-missing', `content part ${event.content_index as number} closed without ${doneEvent}`);
        const final = (event.part as Record<string, unknown> | undefined)?.[kind === 'refusal' ? 'refusal' : 'text'];
        if (typeof final === 'string' && streamed?.doneText !== undefined && final !== streamed.doneText)
          report('delta-sum', `content_part.done text differs from the .done text`);
        part.done = true;
        return;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const state = itemFor(event, report);
        delta(
          state && text(state.parts, event.content_index as number, event, report, true),
          event.delta,
          event,
          report,
        );
        return;
      }
      case 'response.output_text.done':
      case 'response.refusal.done': {
        const state = itemFor(event, report);
        finish(
          state && text(state.parts, event.content_index as number, event, report, true),
          event.type === 'response.refusal.done' ? event.refusal : event.text,
          event,
          report,
        );
        return;
      }
      case 'response.output_text.annotation.added': {
        const state = itemFor(event, report);
        if (state) text(state.parts, event.content_index as number, event, report, true);
        return;
      }
      case 'response.function_call_arguments.delta': {
        const state = itemFor(event, report);
        if (state) delta((state.args ??= { deltas: '', done: false }), event.delta, event, report);
        return;
      }
      case 'response.function_call_arguments.done': {
        const state = itemFor(event, report);
        if (state) finish((state.args ??= { deltas: '', done: false }), event.arguments, event, report);
        return;
      }
      case 'response.reasoning_summary_part.added': {
        const state = itemFor(event, report);
        if (state) state.summaries.set(event.summary_index as number, { deltas: '', done: false });
        return;
      }
      case 'response.reasoning_summary_part.done': {
        const state = itemFor(event, report);
        const part = state && text(state.summaries, event.summary_index as number, event, report, true);
        if (part && part.doneText === undefined)
          report(
            'text-done-missing',
            `summary part ${event.summary_index as number} closed without response.reasoning_summary_text.done`,
          );
        if (part) part.done = true;
        return;
      }
      case 'response.reasoning_summary_text.delta': {
        const state = itemFor(event, report);
        delta(
          state && text(state.summaries, event.summary_index as number, event, report, true),
          event.delta,
          event,
          report,
        );
        return;
      }
      case 'response.reasoning_summary_text.done': {
        const state = itemFor(event, report);
        finish(
          state && text(state.summaries, event.summary_index as number, event, report, true),
          event.text,
          event,
          report,
        );
        return;
      }
      case 'response.reasoning.delta': {
        const state = itemFor(event, report);
        if (state) requireReasoningPart(state, event, report);
        delta(
          state && text(state.reasoning, event.content_index as number, event, report, false),
          event.delta,
          event,
          report,
        );
        return;
      }
      case 'response.reasoning.done': {
        const state = itemFor(event, report);
        if (state) requireReasoningPart(state, event, report);
        finish(
          state && text(state.reasoning, event.content_index as number, event, report, false),
          event.text,
          event,
          report,
        );
        return;
      }
      case 'error':
        pendingError = index;
        return;
      default:
        return;
    }
  };

  return {
    push,
    end(endOptions = {}) {
      const found: Violation[] = [];
      const report = (rule: StreamRule, message: string, severity: Violation['severity'] = 'error') => {
        const violation = { rule, eventIndex: index + 1, message, severity };
        found.push(violation);
        violations.push(violation);
      };
      if (pendingError !== undefined)
        report('error-then-failed', `the error event at ${pendingError} is not followed by response.failed`);
      if (!terminal)
        report(
          'missing-terminal',
          'the stream ended without response.completed, response.incomplete or response.failed',
        );
      if (endOptions.sawDone === false)
        report('missing-done', 'the stream ended without data: [DONE]', lenient ? 'warning' : 'error');
      return found;
    },
    get violations() {
      return violations;
    },
    get response() {
      return accumulator.response;
    },
  };
}

/** Checks a whole stream; `sawDone` says whether `data: [DONE]` ended it (omit when not known). */
export function checkStream(
  events: readonly unknown[],
  options: StreamCheckerOptions & { sawDone?: boolean } = {},
): Violation[] {
  const checker = createStreamChecker(options);
  for (const event of events) checker.push(event);
  checker.end(options.sawDone === undefined ? {} : { sawDone: options.sawDone });
  return [...checker.violations];
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Where two JSON values first differ (key order ignored), or undefined when they are equal. */
function firstDifference(a: unknown, b: unknown, path = 'output'): string | undefined {
  if (a === b) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path} has ${a.length} streamed items but ${b.length} in the terminal response`;
    for (let i = 0; i < a.length; i++) {
      const difference = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (difference) return difference;
    }
    return undefined;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const difference = firstDifference(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
      if (difference) return difference;
    }
    return undefined;
  }
  return `${path}: streamed ${JSON.stringify(a)?.slice(0, 60)}, terminal ${JSON.stringify(b)?.slice(0, 60)}`;
}

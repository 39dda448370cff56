// The spec-exact event validator of each version only: the `versions` map of `@openresponses/types/validate`
// keeps every validator of every version in both modes in a bundle (228 KB minified, validation on or off).
import { validateStreamingEventExactByVersion } from '@openresponses/types/validate/by-version';
import { formatPath, LATEST_SPEC_VERSION, type SpecVersion, validate } from '@openresponses/zod';
import { type ResponseResource, STREAMING_EVENT_TYPES_BY_VERSION } from '@openresponses/types';
import { type Accumulator, createAccumulator, type AccumulatorOptions } from '../accumulator/accumulator.js';
import { type EventTable, tableMap } from '../dispatch.js';
import {
  type AnyStreamingEvent,
  isVendorType,
  PEER_EVENT_ALIASES,
  type StreamingEvent,
  type StreamingEventByType,
  type StreamingEventType,
  type TerminalEventType,
} from '../events.js';

/** Every rule the checker enforces, with the spec text it comes from. */
export const STREAM_RULES = {
  /** Every event is valid for the schema of its type. */
  schema: 'Every event is valid for the schema of its type.',
  /** Event types are the spec’s or slug-prefixed vendor types. */
  'unknown-event-type': 'Event types are the spec’s or slug-prefixed vendor types.',
  /** A known peer variant of a spec event name (lenient profile only). */
  'peer-event-name': 'A known peer variant of a spec event name (lenient profile only).',
  /** The first event is response.created. */
  'first-event': 'The first event is response.created.',
  /** response.created is sent once. */
  'duplicate-created': 'response.created is sent once.',
  /** Every event carries a sequence_number. */
  'sequence-number-missing': 'Every event carries a sequence_number.',
  /** sequence_number strictly increases. */
  'sequence-number-order': 'sequence_number strictly increases.',
  /** sequence_number increases by exactly one, so that clients can detect gaps. */
  'sequence-number-gap': 'sequence_number increases by exactly one, so that clients can detect gaps.',
  /** response.in_progress follows response.created before any other event of the response. */
  'in-progress-missing': 'response.in_progress follows response.created before any other event of the response.',
  /** Output items are added at output_index 0, 1, 2, … in order. */
  'output-index-contiguous': 'Output items are added at output_index 0, 1, 2, … in order.',
  /** An event names an output item only after response.output_item.added for it. */
  'item-not-added': 'An event names an output item only after response.output_item.added for it.',
  /** Each output_index is added once. */
  'item-added-twice': 'Each output_index is added once.',
  /** An event’s item_id is the id of the item at its output_index. */
  'item-id-mismatch': 'An event’s item_id is the id of the item at its output_index.',
  /** An item keeps its id from response.output_item.added to response.output_item.done. */
  'item-id-changed': 'An item keeps its id from response.output_item.added to response.output_item.done.',
  /** Every item carries a status: output_item.added shows it in progress, output_item.done in a terminal status. */
  'item-status':
    'Every item carries a status: output_item.added shows it in progress, output_item.done in a terminal status.',
  /** No event names an item after its response.output_item.done. */
  'event-after-item-done': 'No event names an item after its response.output_item.done.',
  /** Deltas and .done events of a content part follow its content_part.added. */
  'part-not-added': 'Deltas and .done events of a content part follow its content_part.added.',
  /** Each content part is added once. */
  'part-added-twice': 'Each content part is added once.',
  /** No event names a content part after its content_part.done. */
  'event-after-part-done': 'No event names a content part after its content_part.done.',
  /** Every content part is closed (content_part.done) before its item is done. */
  'part-not-done': 'Every content part is closed (content_part.done) before its item is done.',
  /** Streamed text (content, summary, reasoning, function arguments) ends with its .done event before its part or item is done. */
  'text-done-missing':
    'Streamed text (content, summary, reasoning, function arguments) ends with its .done event before its part or item is done.',
  /** No delta follows the .done event of the same text. */
  'delta-after-done': 'No delta follows the .done event of the same text.',
  /** The concatenated deltas equal the text of the .done event and of the final item. */
  'delta-sum': 'The concatenated deltas equal the text of the .done event and of the final item.',
  /** Every output item is done before response.completed or response.incomplete. */
  'item-not-done': 'Every output item is done before response.completed or response.incomplete.',
  /** An item that ends incomplete is the last item. */
  'incomplete-item-last': 'An item that ends incomplete is the last item.',
  /** An item that ends incomplete makes the response incomplete. */
  'incomplete-item-response': 'An item that ends incomplete makes the response incomplete.',
  /** The terminal event’s response status matches it (completed, incomplete, failed). */
  'terminal-status': 'The terminal event’s response status matches it (completed, incomplete, failed).',
  /** The terminal response’s output equals the streamed items. */
  'terminal-output-mismatch': 'The terminal response’s output equals the streamed items.',
  /** Exactly one terminal event (completed, incomplete or failed) ends the stream. */
  'missing-terminal': 'Exactly one terminal event (completed, incomplete or failed) ends the stream.',
  /** Nothing but [DONE] follows the terminal event. */
  'event-after-terminal': 'Nothing but [DONE] follows the terminal event.',
  /** An error event is followed by response.failed. */
  'error-then-failed': 'An error event is followed by response.failed.',
  /** response.failed carries a response whose error is an object with a code and a message. */
  'failed-error': 'response.failed carries a response whose error is an object with a code and a message.',
  /** Vendor events are sent only while the response is in progress. */
  'vendor-event-outside-response': 'Vendor events are sent only while the response is in progress.',
  /** Vendor events carry a type and an integer sequence_number. */
  'vendor-event-shape': 'Vendor events carry a type and an integer sequence_number.',
  /** The stream ends with data: [DONE]. */
  'missing-done': 'The stream ends with data: [DONE].',
} as const;

/** A rule id of `STREAM_RULES`. */
export type StreamRule = keyof typeof STREAM_RULES;

/** A broken rule: which, at which event, how bad. */
export interface Violation {
  /** The rule broken. */
  rule: StreamRule;
  /** Index of the offending event in the stream (the stream length for end-of-stream rules). */
  eventIndex: number;
  /** What happened, naming the event and the values involved. */
  message: string;
  /** `warning` for what the lenient profile tolerates; `error` otherwise. */
  severity: 'error' | 'warning';
}

/** What `createStreamChecker` and `checkStream` take. */
export interface StreamCheckerOptions {
  /**
   * `spec` (default): exactly the spec. `lenient`: accepts known peer variants (`response.reasoning_text.*`,
   * missing sequence_number, missing [DONE]) and reports them as warnings.
   */
  profile?: 'spec' | 'lenient';
  /**
   * The spec version of the stream (default: the latest this package knows): its spec-exact event schema
   * validates each event, and its list of event types decides which are known.
   */
  specVersion?: SpecVersion;
  /** Validate each event against the spec-exact schema (default true). */
  validateSchemas?: boolean;
  /** Vendor folds for the internal accumulator (registered by `@openresponses/extensions`). */
  accumulator?: AccumulatorOptions;
  /**
   * The Zod schema events are validated with (default: `specVersion`'s spec-exact standalone
   * `validateStreamingEvent` from `@openresponses/types/validate`); extensions pass their extended union.
   */
  eventSchema?: Parameters<typeof validate>[0];
  /** Validates registered vendor events (from `@openresponses/extensions`): a message when invalid. */
  validateVendorEvent?: (event: Record<string, unknown>) => string | undefined;
}

/** Checks a stream event by event, from `createStreamChecker()`. */
export interface StreamChecker {
  /** Checks one event; returns the violations it caused. */
  push(event: unknown): Violation[];
  /** Checks the end of the stream. */
  end(options?: { sawDone?: boolean }): Violation[];
  /** Every violation so far, in order. */
  readonly violations: readonly Violation[];
  /** The response rebuilt from the events so far. */
  readonly response: ResponseResource | undefined;
}

interface TextState {
  deltas: string;
  doneText?: string;
  done: boolean;
}
interface PartState extends TextState {
  kind: string;
}
interface ItemState {
  /** The id the item was added with, as the peer sent it. */
  id: unknown;
  done: boolean;
  parts: Map<number, PartState>;
  summaries: Map<number, TextState>;
  reasoning: Map<number, TextState>;
  args?: TextState;
}

/** What an event that names an output item carries. */
interface ItemEvent {
  type: string;
  output_index: number;
  item_id?: string;
}

/** An event as a peer sent it: a string `type`, the rest unchecked. */
type Event = Fields & { type: string };

/** A value's fields as a peer sent them, read by rules that must not trust the schema (none when not an object). */
type Fields = { readonly [key: string]: unknown };
function fieldsOf(value: unknown): Fields {
  return typeof value === 'object' && value !== null ? (value as Fields) : {};
}

function isEvent(value: unknown): value is Event {
  return typeof value === 'object' && value !== null && typeof fieldsOf(value).type === 'string';
}

/** The event that must end the streamed text of each content-part kind before content_part.done. */
const TEXT_DONE_EVENT: Readonly<Record<string, string>> = {
  output_text: 'response.output_text.done',
  refusal: 'response.refusal.done',
  reasoning_text: 'response.reasoning.done',
};

/**
 * The stream so far, as the ordering handlers see it, and where they report. Handlers get events typed by
 * the spec, but a peer's event may break its schema (reported as `schema`): where a rule reads a field that
 * may be missing, it reads it defensively, so the checker never throws.
 */
class StreamState {
  readonly items = new Map<number, ItemState>();
  readonly violations: Violation[] = [];
  /** The violations of the event being checked. */
  found: Violation[] = [];
  /** Index of the event being checked. */
  index = -1;
  started = false;
  terminal: TerminalEventType | undefined;
  pendingError: number | undefined;
  incompleteItem: number | undefined;
  nextOutputIndex = 0;
  inProgressChecked = false;
  lastSequence: number | undefined;

  constructor(
    readonly lenient: boolean,
    readonly accumulator: Accumulator,
  ) {}

  report(rule: StreamRule, message: string, severity: Violation['severity'] = 'error', eventIndex = this.index): void {
    const violation = { rule, eventIndex, message, severity };
    this.found.push(violation);
    this.violations.push(violation);
  }

  /** An error in the spec profile, a warning in the lenient one. */
  get laxSeverity(): Violation['severity'] {
    return this.lenient ? 'warning' : 'error';
  }

  /** The item an event names: reported when it was never added, is done, or has another id. */
  itemFor(event: ItemEvent): ItemState | undefined {
    const outputIndex = event.output_index;
    const item = this.items.get(outputIndex);
    if (!item) {
      this.report('item-not-added', `${event.type} names output_index ${outputIndex}, which was never added`);
      return undefined;
    }
    if (item.done)
      this.report('event-after-item-done', `${event.type} for output_index ${outputIndex} after its output_item.done`);
    if (typeof event.item_id === 'string' && item.id !== undefined && event.item_id !== item.id) {
      this.report('item-id-mismatch', `item_id ${event.item_id} but output_index ${outputIndex} is ${item.id}`);
    }
    return item;
  }

  /** The streamed text at `key` (a content or summary part, raw reasoning); started here unless `mustBeAdded`. */
  text<S extends TextState>(map: Map<number, S>, key: number, event: ItemEvent, mustBeAdded: true): S | undefined;
  text(map: Map<number, TextState>, key: number, event: ItemEvent, mustBeAdded: false): TextState;
  text(map: Map<number, TextState>, key: number, event: ItemEvent, mustBeAdded: boolean): TextState | undefined {
    let state = map.get(key);
    if (!state) {
      if (mustBeAdded) {
        this.report(
          'part-not-added',
          `${event.type} for part ${key} of output_index ${event.output_index} before it was added`,
        );
        return undefined;
      }
      state = { deltas: '', done: false };
      map.set(key, state);
    }
    if (state.done) this.report('event-after-part-done', `${event.type} for part ${key} after it was done`);
    return state;
  }

  delta(state: TextState | undefined, value: unknown, event: ItemEvent): void {
    if (!state || typeof value !== 'string') return;
    if (state.doneText !== undefined) this.report('delta-after-done', `${event.type} after the text was done`);
    state.deltas += value;
  }

  finish(state: TextState | undefined, value: unknown, event: ItemEvent): void {
    if (!state || typeof value !== 'string') return;
    if (state.deltas !== value)
      this.report(
        'delta-sum',
        `${event.type}: the deltas add up to ${JSON.stringify(clip(state.deltas))}, the done text is ${JSON.stringify(clip(value))}`,
      );
    state.doneText = value;
  }

  /** Raw reasoning is streamable content, so a content part must back it; some peers skip it (a warning in lenient). */
  requireReasoningPart(state: ItemState, event: ItemEvent & { content_index: number }): void {
    const key = event.content_index;
    if (state.reasoning.has(key) || state.parts.has(key)) return; // reported once, at the first event of the part
    this.report(
      'part-not-added',
      `${event.type} for reasoning content ${key} of output_index ${event.output_index} without content_part.added`,
      this.laxSeverity,
    );
  }
}

type EventOf<T extends StreamingEventType> = StreamingEventByType<T>;

function checkTerminal(event: EventOf<TerminalEventType>, stream: StreamState): void {
  stream.terminal = event.type;
  stream.pendingError = undefined;
  // A broken peer may send none (reported as `schema`).
  const response: ResponseResource | undefined = event.response;
  if (event.type === 'response.failed' && response) {
    const error = fieldsOf(response.error);
    if (!response.error || typeof error.code !== 'string' || typeof error.message !== 'string')
      stream.report('failed-error', `response.failed carries error ${JSON.stringify(response.error ?? null)}`);
  }
  const expected = event.type.slice('response.'.length);
  if (response && response.status !== expected)
    stream.report('terminal-status', `${event.type} carries a response with status "${response.status}"`);
  if (stream.incompleteItem !== undefined && event.type === 'response.completed') {
    stream.report(
      'incomplete-item-response',
      `output_index ${stream.incompleteItem} ended incomplete, but the response completed`,
    );
  }
  // A failed response may leave items open; its output must still be what was streamed.
  if (event.type !== 'response.failed') {
    for (const [outputIndex, item] of stream.items)
      if (!item.done) stream.report('item-not-done', `output_index ${outputIndex} was never done`);
  }
  const mismatch = firstDifference(stream.accumulator.response?.output ?? [], response?.output ?? []);
  if (mismatch)
    stream.report(
      'terminal-output-mismatch',
      `the terminal response's output differs from the streamed items: ${mismatch}`,
    );
}

function checkItemAdded(event: EventOf<'response.output_item.added'>, stream: StreamState): void {
  const outputIndex = event.output_index;
  if (outputIndex !== stream.nextOutputIndex)
    stream.report('output-index-contiguous', `output_index ${outputIndex} added, expected ${stream.nextOutputIndex}`);
  if (stream.items.has(outputIndex)) stream.report('item-added-twice', `output_index ${outputIndex} added twice`);
  if (stream.incompleteItem !== undefined)
    stream.report(
      'incomplete-item-last',
      `an item was added after output_index ${stream.incompleteItem} ended incomplete`,
    );
  const item = fieldsOf(event.item);
  if (typeof item.status !== 'string')
    stream.report('item-status', `the item added at output_index ${outputIndex} has no status`);
  stream.items.set(outputIndex, {
    id: item.id,
    done: false,
    parts: new Map(),
    summaries: new Map(),
    reasoning: new Map(),
  });
  stream.nextOutputIndex = Math.max(stream.nextOutputIndex, outputIndex + 1);
}

function checkItemDone(event: EventOf<'response.output_item.done'>, stream: StreamState): void {
  const state = stream.itemFor(event);
  if (!state) return;
  const outputIndex = event.output_index;
  const item = fieldsOf(event.item);
  if (state.id !== undefined && item.id !== state.id)
    stream.report(
      'item-id-changed',
      `output_index ${outputIndex} was added as ${state.id} and is done as ${String(item.id)}`,
    );
  if (typeof item.status !== 'string' || item.status === 'in_progress')
    stream.report(
      'item-status',
      `the item done at output_index ${outputIndex} has status ${JSON.stringify(item.status ?? null)}`,
    );
  for (const [key, part] of state.parts)
    if (!part.done) stream.report('part-not-done', `content part ${key} of output_index ${outputIndex} was never done`);
  for (const [key, part] of state.summaries)
    if (!part.done) stream.report('part-not-done', `summary part ${key} of output_index ${outputIndex} was never done`);
  for (const [key, part] of state.reasoning)
    if (part.doneText === undefined)
      stream.report('text-done-missing', `reasoning content ${key} has deltas but no response.reasoning.done`);
  if (state.args && state.args.doneText === undefined)
    stream.report(
      'text-done-missing',
      'function call arguments have deltas but no response.function_call_arguments.done',
    );
  if (
    state.args &&
    typeof item.arguments === 'string' &&
    state.args.deltas !== '' &&
    state.args.deltas !== item.arguments
  ) {
    stream.report(
      'delta-sum',
      `function_call arguments deltas ${JSON.stringify(clip(state.args.deltas))} differ from the final ${JSON.stringify(clip(item.arguments))}`,
    );
  }
  const content: unknown[] = Array.isArray(item.content) ? item.content : [];
  for (const [key, part] of state.parts) {
    const finalPart = fieldsOf(content[key]);
    const final = finalPart.text ?? finalPart.refusal;
    if (part.doneText !== undefined && typeof final === 'string' && final !== part.doneText) {
      stream.report('delta-sum', `content part ${key}: the final item text differs from its .done text`);
    }
  }
  state.done = true;
  if (item.status === 'incomplete') stream.incompleteItem = outputIndex;
}

function checkPartAdded(event: EventOf<'response.content_part.added'>, stream: StreamState): void {
  const state = stream.itemFor(event);
  if (!state) return;
  const key = event.content_index;
  if (state.parts.has(key))
    stream.report('part-added-twice', `content part ${key} of output_index ${event.output_index} added twice`);
  state.parts.set(key, { kind: String(fieldsOf(event.part).type), deltas: '', done: false });
}

function checkPartDone(event: EventOf<'response.content_part.done'>, stream: StreamState): void {
  const state = stream.itemFor(event);
  const key = event.content_index;
  const part = state && stream.text(state.parts, key, event, true);
  if (!part) return;
  const kind = part.kind;
  const doneEvent = Object.hasOwn(TEXT_DONE_EVENT, kind) ? TEXT_DONE_EVENT[kind] : undefined;
  // Raw reasoning text is tracked by its own events (response.reasoning.*), the other kinds on the part.
  const streamed = kind === 'reasoning_text' ? state.reasoning.get(key) : part;
  if (doneEvent && streamed?.doneText === undefined)
    stream.report('text-done-missing', `content part ${key} closed without ${doneEvent}`);
  const final = fieldsOf(event.part)[kind === 'refusal' ? 'refusal' : 'text'];
  if (typeof final === 'string' && streamed?.doneText !== undefined && final !== streamed.doneText)
    stream.report('delta-sum', `content_part.done text differs from the .done text`);
  part.done = true;
}

/** Streamed text of a content or summary part: the part must be open, deltas add up to the .done text. */
function checkPartText(
  event: EventOf<
    | 'response.output_text.delta'
    | 'response.refusal.delta'
    | 'response.reasoning_summary_text.delta'
    | 'response.output_text.done'
    | 'response.refusal.done'
    | 'response.reasoning_summary_text.done'
  >,
  stream: StreamState,
): void {
  const state = stream.itemFor(event);
  if (!state) return;
  const part =
    event.type === 'response.reasoning_summary_text.delta' || event.type === 'response.reasoning_summary_text.done'
      ? stream.text(state.summaries, event.summary_index, event, true)
      : stream.text(state.parts, event.content_index, event, true);
  if (
    event.type === 'response.output_text.delta' ||
    event.type === 'response.refusal.delta' ||
    event.type === 'response.reasoning_summary_text.delta'
  )
    stream.delta(part, event.delta, event);
  else stream.finish(part, event.type === 'response.refusal.done' ? event.refusal : event.text, event);
}

function checkReasoning(
  event: EventOf<'response.reasoning.delta' | 'response.reasoning.done'>,
  stream: StreamState,
): void {
  const state = stream.itemFor(event);
  if (!state) return;
  stream.requireReasoningPart(state, event);
  const text = stream.text(state.reasoning, event.content_index, event, false);
  if (event.type === 'response.reasoning.delta') stream.delta(text, event.delta, event);
  else stream.finish(text, event.text, event);
}

/** Events with no ordering rule of their own (every event's place after response.in_progress is checked in push). */
const noOrderingRule = (): void => {};

/** The ordering rules, one handler per event type (or family): a spec event type without one does not compile. */
const ORDERING_RULES: EventTable<StreamState> = {
  'response.created': (_event, stream) => {
    if (stream.started) stream.report('duplicate-created', 'a second response.created');
    stream.started = true;
  },
  'response.queued': noOrderingRule,
  'response.in_progress': noOrderingRule,
  'response.completed': checkTerminal,
  'response.incomplete': checkTerminal,
  'response.failed': checkTerminal,
  'response.output_item.added': checkItemAdded,
  'response.output_item.done': checkItemDone,
  'response.content_part.added': checkPartAdded,
  'response.content_part.done': checkPartDone,
  'response.output_text.delta': checkPartText,
  'response.refusal.delta': checkPartText,
  'response.output_text.done': checkPartText,
  'response.refusal.done': checkPartText,
  'response.output_text.annotation.added': (event, stream) => {
    const state = stream.itemFor(event);
    if (state) stream.text(state.parts, event.content_index, event, true);
  },
  'response.function_call_arguments.delta': (event, stream) => {
    const state = stream.itemFor(event);
    if (state) stream.delta((state.args ??= { deltas: '', done: false }), event.delta, event);
  },
  'response.function_call_arguments.done': (event, stream) => {
    const state = stream.itemFor(event);
    if (state) stream.finish((state.args ??= { deltas: '', done: false }), event.arguments, event);
  },
  'response.reasoning_summary_part.added': (event, stream) => {
    const state = stream.itemFor(event);
    if (state) state.summaries.set(event.summary_index, { deltas: '', done: false });
  },
  'response.reasoning_summary_part.done': (event, stream) => {
    const state = stream.itemFor(event);
    const part = state && stream.text(state.summaries, event.summary_index, event, true);
    if (part && part.doneText === undefined)
      stream.report(
        'text-done-missing',
        `summary part ${event.summary_index} closed without response.reasoning_summary_text.done`,
      );
    if (part) part.done = true;
  },
  'response.reasoning_summary_text.delta': checkPartText,
  'response.reasoning_summary_text.done': checkPartText,
  'response.reasoning.delta': checkReasoning,
  'response.reasoning.done': checkReasoning,
  error: (_event, stream) => {
    stream.pendingError = stream.index;
  },
};

/**
 * The first problem of an event, if any: a registry's extended union is a Zod schema; the spec's own union
 * is checked by the standalone validator (3-4x zod classic per event, bench/validation-stream.bench.ts).
 */
function firstIssueOf(
  specVersion: SpecVersion,
  eventSchema: Parameters<typeof validate>[0] | undefined,
): (event: unknown) => { path: string; message: string } | undefined {
  if (eventSchema)
    return (event) => {
      const result = validate(eventSchema, event);
      return result.success ? undefined : result.issues[0]!;
    };
  const check = validateStreamingEventExactByVersion[specVersion];
  return (event) => {
    const result = check(event);
    if (result.success) return undefined;
    const issue = result.issues[0]!;
    return { path: formatPath(issue.path), message: issue.message };
  };
}

/** Checks a stream against the spec's ordering rules, event by event. */
export function createStreamChecker(options: StreamCheckerOptions = {}): StreamChecker {
  const lenient = options.profile === 'lenient';
  const validateSchemas = options.validateSchemas ?? true;
  const stream = new StreamState(lenient, createAccumulator(options.accumulator));
  const specVersion = options.specVersion ?? LATEST_SPEC_VERSION;
  const firstIssue = firstIssueOf(specVersion, options.eventSchema);
  const knownTypes = knownEventTypes(specVersion);

  const push = (raw: unknown): Violation[] => {
    stream.index++;
    const found: Violation[] = [];
    stream.found = found;
    const index = stream.index;
    if (!isEvent(raw)) {
      stream.report('schema', 'not an object with a string "type"');
      return found;
    }
    let event = raw;
    // Sequence numbers, for every event including vendor ones. An event that breaks a rule still takes the
    // next slot, so that one bad event is reported once and not again as a gap at the next one.
    const sequence = event.sequence_number;
    const last = stream.lastSequence;
    if (typeof sequence !== 'number') {
      stream.report('sequence-number-missing', `${event.type} has no sequence_number`, stream.laxSeverity);
      if (lenient) event = { ...event, sequence_number: (last ?? -1) + 1 };
      stream.lastSequence = (last ?? -1) + 1;
    } else if (last !== undefined && sequence <= last) {
      stream.report('sequence-number-order', `sequence_number ${sequence} does not follow ${last}`);
      stream.lastSequence = last + 1;
    } else {
      if (last !== undefined && sequence > last + 1)
        stream.report(
          'sequence-number-gap',
          `sequence_number ${sequence} follows ${last}: ${sequence - last - 1} missing`,
          stream.laxSeverity,
        );
      stream.lastSequence = sequence;
    }

    // Own-property check: `constructor` and the like are no aliases.
    const alias = Object.hasOwn(PEER_EVENT_ALIASES, event.type) ? PEER_EVENT_ALIASES[event.type] : undefined;
    if (alias) {
      if (lenient) {
        stream.report('peer-event-name', `"${event.type}" is a peer variant of "${alias}"`, 'warning');
        event = { ...event, type: alias };
      } else {
        stream.report('unknown-event-type', `"${event.type}" is not a spec event type (the spec name is "${alias}")`);
        return found;
      }
    }
    const type = event.type;
    const vendor = isVendorType(type);
    if (!knownTypes.has(type) && !vendor) {
      stream.report(
        'unknown-event-type',
        `"${type}" is neither a spec event type nor slug-prefixed (acme:thing)`,
        stream.laxSeverity,
      );
      return found;
    }

    if (validateSchemas && !vendor) {
      // A missing sequence_number is reported once, by its own rule.
      const issue = firstIssue(
        typeof event.sequence_number === 'number' ? event : { ...event, sequence_number: index },
      );
      if (issue) stream.report('schema', `${type}: ${issue.path ? `${issue.path}: ` : ''}${issue.message}`);
    }
    if (vendor && !Number.isInteger(event.sequence_number))
      stream.report('vendor-event-shape', `${type} needs an integer sequence_number`);
    const vendorProblem = vendor ? options.validateVendorEvent?.(event) : undefined;
    if (vendorProblem) stream.report('vendor-event-shape', `${type}: ${vendorProblem}`);

    if (index === 0 && type !== 'response.created')
      stream.report('first-event', `the first event is ${type}, not response.created`);
    if (stream.terminal) stream.report('event-after-terminal', `${type} after ${stream.terminal}`);
    if (stream.started && !stream.inProgressChecked && !vendor) {
      // The response moves to in_progress before anything happens in it, and the move is announced.
      stream.inProgressChecked = true;
      if (type !== 'response.in_progress')
        stream.report(
          'in-progress-missing',
          `${type} follows response.created without response.in_progress`,
          stream.laxSeverity,
        );
    }
    if (vendor) {
      if (!stream.started || stream.terminal)
        stream.report('vendor-event-outside-response', `${type} outside the response's lifetime`);
      stream.accumulator.push(event as AnyStreamingEvent);
      return found;
    }
    if (stream.pendingError !== undefined && type !== 'response.failed') {
      stream.report(
        'error-then-failed',
        `the error event at ${stream.pendingError} is followed by ${type}, not response.failed`,
      );
      stream.pendingError = undefined;
    }

    // A spec event type from here on; its fields may still break the schema (reported above), which the
    // handlers allow for where they read them. (The table covers the latest version's types; a type only an
    // older version had would go unchecked here, and no version has one so far.)
    ORDERING_RULES_BY_TYPE.get(type)?.(event as StreamingEvent, stream);
    // The accumulator takes any decoded event; its `type` is a peer's string (the schema has reported it).
    stream.accumulator.push(event as AnyStreamingEvent);
    return found;
  };

  return {
    push,
    end(endOptions = {}) {
      const found: Violation[] = [];
      stream.found = found;
      const endIndex = stream.index + 1;
      if (stream.pendingError !== undefined)
        stream.report(
          'error-then-failed',
          `the error event at ${stream.pendingError} is not followed by response.failed`,
          'error',
          endIndex,
        );
      if (!stream.terminal)
        stream.report(
          'missing-terminal',
          'the stream ended without response.completed, response.incomplete or response.failed',
          'error',
          endIndex,
        );
      if (endOptions.sawDone === false)
        stream.report('missing-done', 'the stream ended without data: [DONE]', stream.laxSeverity, endIndex);
      return found;
    },
    get violations() {
      return stream.violations;
    },
    get response() {
      return stream.accumulator.response;
    },
  };
}

const ORDERING_RULES_BY_TYPE = tableMap(ORDERING_RULES);

const eventTypesByVersion = new Map<SpecVersion, ReadonlySet<string>>();
/** The event types a spec version defines, as a set made once per version. */
function knownEventTypes(version: SpecVersion): ReadonlySet<string> {
  let known = eventTypesByVersion.get(version);
  if (!known) {
    known = new Set(STREAMING_EVENT_TYPES_BY_VERSION[version]);
    eventTypesByVersion.set(version, known);
  }
  return known;
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
      const difference = firstDifference(fieldsOf(a)[key], fieldsOf(b)[key], `${path}.${key}`);
      if (difference) return difference;
    }
    return undefined;
  }
  return `${path}: streamed ${JSON.stringify(a)?.slice(0, 60)}, terminal ${JSON.stringify(b)?.slice(0, 60)}`;
}

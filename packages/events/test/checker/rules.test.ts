// One targeted break per rule: a clean writer-built stream is edited in exactly one way, and the checker
// must report exactly the rules listed (the rule under test, plus any consequence named in the case).
import { describe, expect, test } from 'vitest';
import { helloAndCall, recordingWriter } from '../__fixtures__/responses.js';
import type { StreamWriter } from '../../src/writer/writer.js';
import {
  checkStream,
  createStreamChecker,
  STREAM_RULES,
  type StreamRule,
  type Violation,
} from '../../src/checker/checker.js';

type Event = Record<string, unknown> & { type: string };

function record(script: (writer: StreamWriter) => void): Event[] {
  const { writer, events } = recordingWriter();
  script(writer);
  return events as Event[];
}

/** A message "Hello" (two deltas) at output_index 0, a function call at 1, response.completed. */
const messageAndCall = (): Event[] => helloAndCall();

/** A reasoning item streaming raw reasoning text ("think") at output_index 0. */
const reasoningContent = () =>
  record((writer) => {
    writer.start();
    const reasoning = writer.addReasoning();
    reasoning.appendContent('thi');
    reasoning.appendContent('nk');
    reasoning.done();
    writer.complete();
  });

/** A message cut off mid-text: it ends incomplete, then response.incomplete. */
const cutOff = () =>
  record((writer) => {
    writer.start();
    writer.addMessage().addOutputText().append('Hel');
    writer.incomplete('max_output_tokens');
  });

const find = (events: Event[], type: string, nth = 0, where: (e: Event) => boolean = () => true): number => {
  const found = events.flatMap((e, i) => (e.type === type && where(e) ? [i] : []));
  if (found[nth] === undefined) throw new Error(`no ${type} #${nth} in the base stream`);
  return found[nth];
};
/** Sequence numbers 0, 1, 2, … again after an edit, so that only the edited rule can fire. */
const renumber = (events: Event[]): Event[] => events.map((e, i) => ({ ...e, sequence_number: i }));
const insertAt = (events: Event[], at: number, event: Event): Event[] =>
  renumber([...events.slice(0, at), event, ...events.slice(at)]);
const dropAt = (events: Event[], at: number): Event[] => renumber(events.filter((_, i) => i !== at));
const replaceAt = (events: Event[], at: number, patch: (e: Event) => Event): Event[] =>
  events.map((e, i) => (i === at ? patch(structuredClone(e)) : e));
const terminal = (events: Event[]) => events.length - 1;
const vendorEvent = (sequence_number: number): Event => ({
  type: 'acme:trace_event',
  sequence_number,
  phase: 'tool_resolution',
});

interface Case {
  rule: StreamRule;
  why: string;
  stream: () => Event[];
  errors: StreamRule[];
  warnings?: StreamRule[];
  profile?: 'spec' | 'lenient';
  sawDone?: boolean;
}

const cases: Case[] = [
  {
    rule: 'schema',
    why: 'a text delta that is not a string',
    stream: () => {
      const events = messageAndCall();
      return replaceAt(events, find(events, 'response.output_text.delta'), (e) => ({ ...e, delta: 42 }));
    },
    // The non-string delta is not counted, so the two deltas no longer add up to the done text.
    errors: ['schema', 'delta-sum'],
  },
  {
    rule: 'schema',
    why: 'a response.completed without its response',
    stream: () => replaceAt(messageAndCall(), 13, ({ response: _, ...e }) => e as Event),
    // Without a response there is no streamed output to compare with either.
    errors: ['schema', 'terminal-output-mismatch'],
  },
  {
    rule: 'unknown-event-type',
    why: 'an unprefixed type the spec does not define',
    stream: () => insertAt(messageAndCall(), 2, { type: 'response.heartbeat', sequence_number: 2 }),
    errors: ['unknown-event-type'],
  },
  {
    rule: 'unknown-event-type',
    why: 'the lenient profile downgrades an unknown type to a warning',
    stream: () => insertAt(messageAndCall(), 2, { type: 'response.heartbeat', sequence_number: 2 }),
    profile: 'lenient',
    errors: [],
    warnings: ['unknown-event-type'],
  },
  {
    rule: 'peer-event-name',
    why: 'response.reasoning_text.delta instead of response.reasoning.delta',
    stream: () => {
      const events = record((writer) => {
        writer.start();
        const reasoning = writer.addReasoning();
        reasoning.appendContent('think');
        reasoning.done();
        writer.complete();
      });
      return replaceAt(events, find(events, 'response.reasoning.delta'), (e) => ({
        ...e,
        type: 'response.reasoning_text.delta',
      }));
    },
    profile: 'lenient',
    errors: [],
    warnings: ['peer-event-name'],
  },
  {
    rule: 'first-event',
    why: 'response.in_progress before response.created',
    stream: () => {
      const events = messageAndCall();
      return renumber([events[1]!, events[0]!, ...events.slice(2)]);
    },
    // response.created is then followed by an output item, not by response.in_progress.
    errors: ['first-event', 'in-progress-missing'],
  },
  {
    rule: 'duplicate-created',
    why: 'a second response.created',
    stream: () => {
      const events = messageAndCall();
      return insertAt(events, 2, structuredClone(events[0]!));
    },
    errors: ['duplicate-created'],
  },
  {
    rule: 'sequence-number-missing',
    why: 'a delta without sequence_number',
    stream: () => {
      const events = messageAndCall();
      return replaceAt(
        events,
        find(events, 'response.output_text.delta'),
        ({ sequence_number: _, ...e }) => e as Event,
      );
    },
    errors: ['sequence-number-missing'],
  },
  {
    rule: 'sequence-number-order',
    why: 'a sequence_number that goes back',
    stream: () => {
      const events = messageAndCall();
      const at = find(events, 'response.output_text.delta', 1);
      return replaceAt(events, at, (e) => ({ ...e, sequence_number: at - 2 }));
    },
    errors: ['sequence-number-order'],
  },
  {
    rule: 'output-index-contiguous',
    why: 'the function call announced at output_index 2 although 1 is next',
    stream: () => {
      const events = messageAndCall();
      const added = find(events, 'response.output_item.added', 1);
      return events.map((e, i) => (i >= added && e.output_index === 1 ? { ...e, output_index: 2 } : e));
    },
    // The terminal response keeps the call at index 1, where the stream left a hole.
    errors: ['output-index-contiguous', 'terminal-output-mismatch'],
  },
  {
    rule: 'item-not-added',
    why: 'function call arguments for an item never announced',
    stream: () => {
      const events = messageAndCall();
      return dropAt(events, find(events, 'response.output_item.added', 1));
    },
    errors: ['item-not-added'],
  },
  {
    rule: 'item-added-twice',
    why: 'the message announced twice',
    stream: () => {
      const events = messageAndCall();
      const added = find(events, 'response.output_item.added');
      return insertAt(events, added + 1, structuredClone(events[added]!));
    },
    // The second announcement also names an index below the next free one.
    errors: ['item-added-twice', 'output-index-contiguous'],
  },
  {
    rule: 'item-id-mismatch',
    why: 'a delta whose item_id is not the id of the item at its output_index',
    stream: () => {
      const events = messageAndCall();
      return replaceAt(events, find(events, 'response.output_text.delta'), (e) => ({ ...e, item_id: 'msg_other' }));
    },
    errors: ['item-id-mismatch'],
  },
  {
    rule: 'event-after-item-done',
    why: 'output_item.done sent twice for the message',
    stream: () => {
      const events = messageAndCall();
      const done = find(events, 'response.output_item.done');
      return insertAt(events, done + 1, structuredClone(events[done]!));
    },
    errors: ['event-after-item-done'],
  },
  {
    rule: 'part-not-added',
    why: 'text deltas without content_part.added',
    stream: () => {
      const events = messageAndCall();
      return dropAt(events, find(events, 'response.content_part.added'));
    },
    errors: ['part-not-added'],
  },
  {
    rule: 'part-not-added',
    why: 'raw reasoning deltas without content_part.added',
    stream: () => {
      const events = reasoningContent();
      return dropAt(events, find(events, 'response.content_part.added'));
    },
    errors: ['part-not-added'],
  },
  {
    rule: 'part-not-added',
    why: 'the lenient profile accepts raw reasoning without a content part, with a warning',
    stream: () => {
      const events = reasoningContent();
      const added = find(events, 'response.content_part.added');
      return renumber(
        events.filter((e, i) => i !== added && !(e.type === 'response.content_part.done' && e.output_index === 0)),
      );
    },
    profile: 'lenient',
    errors: [],
    warnings: ['part-not-added'],
  },
  {
    rule: 'text-done-missing',
    why: 'a raw reasoning part closed without response.reasoning.done',
    stream: () => {
      const events = reasoningContent();
      return dropAt(events, find(events, 'response.reasoning.done'));
    },
    errors: ['text-done-missing'],
  },
  {
    rule: 'part-added-twice',
    why: 'content_part.added sent twice',
    stream: () => {
      const events = messageAndCall();
      const added = find(events, 'response.content_part.added');
      return insertAt(events, added + 1, structuredClone(events[added]!));
    },
    errors: ['part-added-twice'],
  },
  {
    rule: 'event-after-part-done',
    why: 'content_part.done sent twice',
    stream: () => {
      const events = messageAndCall();
      const done = find(events, 'response.content_part.done');
      return insertAt(events, done + 1, structuredClone(events[done]!));
    },
    errors: ['event-after-part-done'],
  },
  {
    rule: 'part-not-done',
    why: 'the message closed while its content part is open',
    stream: () => {
      const events = messageAndCall();
      return dropAt(events, find(events, 'response.content_part.done'));
    },
    errors: ['part-not-done'],
  },
  {
    rule: 'text-done-missing',
    why: 'function call arguments streamed without function_call_arguments.done',
    stream: () => {
      const events = messageAndCall();
      return dropAt(events, find(events, 'response.function_call_arguments.done'));
    },
    errors: ['text-done-missing'],
  },
  {
    rule: 'delta-after-done',
    why: 'an (empty) text delta after output_text.done',
    stream: () => {
      const events = messageAndCall();
      const done = find(events, 'response.output_text.done');
      return insertAt(events, done + 1, { ...structuredClone(events[done - 1]!), delta: '' });
    },
    errors: ['delta-after-done'],
  },
  {
    rule: 'delta-sum',
    why: 'function_call_arguments.done whose arguments are not the deltas',
    stream: () => {
      const events = messageAndCall();
      return replaceAt(events, find(events, 'response.function_call_arguments.done'), (e) => ({
        ...e,
        arguments: '{"city":"Paris"}',
      }));
    },
    errors: ['delta-sum'],
  },
  {
    rule: 'item-not-done',
    why: 'response.completed while the message was never done',
    stream: () => {
      const events = messageAndCall();
      return dropAt(events, find(events, 'response.output_item.done'));
    },
    // The streamed message stays in_progress while the terminal response says completed.
    errors: ['item-not-done', 'terminal-output-mismatch'],
  },
  {
    rule: 'incomplete-item-last',
    why: 'a function call added after the message ended incomplete',
    stream: () => {
      const events = cutOff();
      const call = record((writer) => {
        writer.start();
        writer.addMessage().done();
        writer.addFunctionCall({ name: 'get_weather', call_id: 'call_1' }).done();
        writer.complete();
      });
      const callEvents = call.filter((e) => e.output_index === 1);
      const end = structuredClone(events[terminal(events)]!) as Event & { response: { output: unknown[] } };
      end.response.output.push(callEvents.at(-1)!.item);
      return renumber([...events.slice(0, terminal(events)), ...callEvents, end]);
    },
    errors: ['incomplete-item-last'],
  },
  {
    rule: 'incomplete-item-response',
    why: 'response.completed after an item ended incomplete',
    stream: () => {
      const events = cutOff();
      return replaceAt(events, terminal(events), (e) => ({
        ...e,
        type: 'response.completed',
        response: { ...(e.response as object), status: 'completed', incomplete_details: null },
      }));
    },
    errors: ['incomplete-item-response'],
  },
  {
    rule: 'terminal-status',
    why: 'response.completed carrying a response still in_progress',
    stream: () => {
      const events = messageAndCall();
      return replaceAt(events, terminal(events), (e) => ({
        ...e,
        response: { ...(e.response as object), status: 'in_progress' },
      }));
    },
    errors: ['terminal-status'],
  },
  {
    rule: 'terminal-output-mismatch',
    why: 'response.completed whose output lost the function call',
    stream: () => {
      const events = messageAndCall();
      return replaceAt(events, terminal(events), (e) => {
        const response = e.response as { output: unknown[] };
        return { ...e, response: { ...response, output: response.output.slice(0, 1) } };
      });
    },
    errors: ['terminal-output-mismatch'],
  },
  {
    rule: 'missing-terminal',
    why: 'the stream stops after the last item',
    stream: () => {
      const events = messageAndCall();
      return events.slice(0, terminal(events));
    },
    errors: ['missing-terminal'],
  },
  {
    rule: 'event-after-terminal',
    why: 'a second response.completed',
    stream: () => {
      const events = messageAndCall();
      return renumber([...events, structuredClone(events[terminal(events)]!)]);
    },
    errors: ['event-after-terminal'],
  },
  {
    rule: 'error-then-failed',
    why: 'an error event followed by response.completed (the error swallowed)',
    stream: () => {
      const events = messageAndCall();
      return insertAt(events, terminal(events), {
        type: 'error',
        sequence_number: 0,
        error: { type: 'server_error', code: null, message: 'upstream reset', param: null },
      });
    },
    errors: ['error-then-failed'],
  },
  {
    rule: 'vendor-event-outside-response',
    why: 'a vendor event after response.completed',
    stream: () => renumber([...messageAndCall(), vendorEvent(0)]),
    errors: ['event-after-terminal', 'vendor-event-outside-response'],
  },
  {
    rule: 'vendor-event-outside-response',
    why: 'a vendor event before response.created',
    stream: () => insertAt(messageAndCall(), 0, vendorEvent(0)),
    errors: ['first-event', 'vendor-event-outside-response'],
  },
  {
    rule: 'vendor-event-shape',
    why: 'a vendor event with a fractional sequence_number',
    stream: () => {
      const events = messageAndCall();
      return [...events.slice(0, 2), vendorEvent(1.5), ...events.slice(2)];
    },
    errors: ['vendor-event-shape'],
  },
  {
    rule: 'sequence-number-gap',
    why: 'a sequence_number that skips one',
    stream: () => messageAndCall().map((e, i) => (i >= 5 ? { ...e, sequence_number: i + 1 } : e)),
    errors: ['sequence-number-gap'],
  },
  {
    rule: 'sequence-number-gap',
    why: 'the lenient profile downgrades a gap to a warning',
    stream: () => messageAndCall().map((e, i) => (i >= 5 ? { ...e, sequence_number: i + 1 } : e)),
    profile: 'lenient',
    errors: [],
    warnings: ['sequence-number-gap'],
  },
  {
    rule: 'in-progress-missing',
    why: 'no response.in_progress after response.created',
    stream: () => dropAt(messageAndCall(), find(messageAndCall(), 'response.in_progress')),
    errors: ['in-progress-missing'],
  },
  {
    rule: 'item-id-changed',
    why: 'output_item.done names the message with another id than output_item.added',
    stream: () => {
      const events = messageAndCall();
      const at = find(events, 'response.output_item.done');
      const renamed = (item: unknown) => ({ ...(item as Record<string, unknown>), id: 'msg_other' });
      return events.map((e, i) => {
        if (i === at) return { ...e, item: renamed(e.item) };
        if (i !== terminal(events)) return e;
        const response = e.response as { output: unknown[] };
        return { ...e, response: { ...response, output: [renamed(response.output[0]), response.output[1]] } };
      });
    },
    errors: ['item-id-changed'],
  },
  {
    rule: 'item-status',
    why: 'a reasoning item added without a status (the schema does not ask for one; the prose does)',
    stream: () => {
      const events = reasoningContent();
      return replaceAt(events, find(events, 'response.output_item.added'), (e) => {
        delete (e.item as Record<string, unknown>).status;
        return e;
      });
    },
    errors: ['item-status'],
  },
  {
    rule: 'item-status',
    why: 'an item done while still in_progress',
    stream: () => {
      const events = messageAndCall();
      const at = find(events, 'response.output_item.done', 1);
      const open = (item: unknown) => ({ ...(item as Record<string, unknown>), status: 'in_progress' });
      return events.map((e, i) => {
        if (i === at) return { ...e, item: open(e.item) };
        if (i !== terminal(events)) return e;
        const response = e.response as { output: unknown[] };
        return { ...e, response: { ...response, output: [response.output[0], open(response.output[1])] } };
      });
    },
    errors: ['item-status'],
  },
  {
    rule: 'failed-error',
    why: 'response.failed whose error is null',
    stream: () => {
      const events = record((writer) => {
        writer.start();
        writer.fail({ type: 'model_error', code: 'model_failed', message: 'broke' });
      });
      return replaceAt(events, terminal(events), (e) => ({
        ...e,
        response: { ...(e.response as Record<string, unknown>), error: null },
      }));
    },
    errors: ['failed-error'],
  },
  {
    rule: 'missing-done',
    why: 'no data: [DONE] after the terminal event',
    stream: messageAndCall,
    sawDone: false,
    errors: ['missing-done'],
  },
];

const rulesOf = (violations: Violation[], severity: Violation['severity']) =>
  [...new Set(violations.filter((v) => v.severity === severity).map((v) => v.rule))].sort();

describe('each rule is reported for its own break', () => {
  test('the unedited streams are clean', () => {
    expect(checkStream(messageAndCall(), { sawDone: true })).toEqual([]);
    expect(checkStream(cutOff(), { sawDone: true })).toEqual([]);
    expect(checkStream(reasoningContent(), { sawDone: true })).toEqual([]);
    expect(
      reasoningContent()
        .map((e) => e.type)
        .slice(2, -1),
    ).toEqual([
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning.delta',
      'response.reasoning.delta',
      'response.reasoning.done',
      'response.content_part.done',
      'response.output_item.done',
    ]);
  });

  test.each(cases.map((c) => [c.rule, c.why, c] as const))('%s: %s', (_rule, _why, c) => {
    const violations = checkStream(c.stream(), { profile: c.profile ?? 'spec', sawDone: c.sawDone ?? true });
    expect(rulesOf(violations, 'error'), JSON.stringify(violations, null, 1)).toEqual([...c.errors].sort());
    expect(rulesOf(violations, 'warning')).toEqual([...(c.warnings ?? [])].sort());
    expect([...c.errors, ...(c.warnings ?? [])]).toContain(c.rule);
  });

  test('every rule id has a case here', () => {
    const covered = new Set(cases.map((c) => c.rule));
    expect(Object.keys(STREAM_RULES).filter((rule) => !covered.has(rule as StreamRule))).toEqual([]);
  });
});

describe('incremental checking', () => {
  test('push reports a violation at the event that causes it, with its index', () => {
    const events = messageAndCall();
    const at = find(events, 'response.output_text.delta');
    const broken = replaceAt(events, at, (e) => ({ ...e, item_id: 'msg_other' }));
    const checker = createStreamChecker();
    const perEvent = broken.map((event) => checker.push(event));
    expect(perEvent.findIndex((found) => found.length > 0)).toBe(at);
    expect(perEvent[at]).toEqual([
      expect.objectContaining({ rule: 'item-id-mismatch', eventIndex: at, severity: 'error' }),
    ]);
    expect(checker.end({ sawDone: true })).toEqual([]);
    expect(checker.violations).toHaveLength(1);
  });

  test('end-of-stream rules point past the last event', () => {
    const events = messageAndCall().slice(0, -1);
    const checker = createStreamChecker();
    for (const event of events) checker.push(event);
    expect(checker.end({ sawDone: false })).toEqual([
      expect.objectContaining({ rule: 'missing-terminal', eventIndex: events.length }),
      expect.objectContaining({ rule: 'missing-done', eventIndex: events.length }),
    ]);
  });

  test('values that are not events are schema violations, not crashes', () => {
    for (const value of [null, 42, 'response.created', [], { sequence_number: 0 }]) {
      expect(checkStream([value]).map((v) => v.rule)).toContain('schema');
    }
  });
});

// The stream inspector's model: what the page shows for a stream, without the DOM, so it is tested in
// Node on recorded streams and drives the page in the browser. Every event goes through the events
// package's stream checker; its violations are attached to the event that caused them.
/**
 * The stream inspector's model, without the DOM: `StreamInspector` takes a stream's events and gives the
 * playground's timeline, item and part tree and every rule's verdict (through the events package's checker).
 *
 * @packageDocumentation
 */
import {
  createStreamChecker,
  STREAM_RULES,
  type StreamCheckerOptions,
  type StreamRule,
  type Violation,
} from '@openresponses/events';

/** One event as the inspector shows it in the timeline. */
export interface TimelineEntry {
  /** The event's index in the stream. */
  readonly index: number;
  /** Milliseconds since the stream started (or since the first event, for recordings). */
  readonly at: number;
  /** The event's `type` (`(no type)` when it has none). */
  readonly type: string;
  /** Its `sequence_number`, when it has one. */
  readonly sequenceNumber: number | undefined;
  /** Its `output_index`, when it has one. */
  readonly outputIndex: number | undefined;
  /** The event as received. */
  readonly event: unknown;
  /** The rules it broke (end-of-stream ones are attached to the event they name). */
  readonly violations: Violation[];
}

/** An output item or one of its parts, open until its `.done` event. */
export interface TreeNode {
  /** A stable key for the node (`item:0`, `part:0:1`). */
  readonly key: string;
  /** What the node shows: the item type and id, or the part type. */
  label: string;
  /** An output item or one of its content parts. */
  readonly kind: 'item' | 'part';
  /** Open until its `.done` event. */
  state: 'open' | 'done';
  /** An item's parts. */
  readonly children: TreeNode[];
}

/** One rule of the stream checker and how the stream fared on it. */
export interface RuleVerdict {
  /** The rule id. */
  readonly rule: StreamRule;
  /** The spec text the rule comes from. */
  readonly description: string;
  /** Where the stream broke it (empty: it held). */
  readonly violations: readonly Violation[];
}

type EventRecord = Record<string, unknown>;

const asNumber = (value: unknown) => (typeof value === 'number' ? value : undefined);
const asRecord = (value: unknown): EventRecord =>
  value && typeof value === 'object' ? (value as EventRecord) : ({} as EventRecord);

/** Collects one stream: the timeline, the tree of items and parts, the checker's verdict per rule. */
export class StreamInspector {
  /** The timeline: one entry per event. */
  readonly entries: TimelineEntry[] = [];
  /** The output items and their parts. */
  readonly tree: TreeNode[] = [];
  /** Violations found at the end of the stream (missing terminal event, missing `[DONE]`, …). */
  readonly endViolations: Violation[] = [];
  private readonly checker;
  private ended = false;

  constructor(options: StreamCheckerOptions = {}) {
    this.checker = createStreamChecker(options);
  }

  /** Adds the next event, received `at` ms into the stream; returns its timeline entry. */
  push(event: unknown, at: number): TimelineEntry {
    const record = asRecord(event);
    const entry: TimelineEntry = {
      index: this.entries.length,
      at,
      type: typeof record.type === 'string' ? record.type : '(no type)',
      sequenceNumber: asNumber(record.sequence_number),
      outputIndex: asNumber(record.output_index),
      event,
      violations: this.checker.push(event),
    };
    this.entries.push(entry);
    this.updateTree(record);
    return entry;
  }

  /** Ends the stream; returns the end-of-stream violations. */
  end(sawDone: boolean): Violation[] {
    if (this.ended) return this.endViolations;
    this.ended = true;
    for (const violation of this.checker.end({ sawDone })) {
      const entry = this.entries[violation.eventIndex];
      if (entry) entry.violations.push(violation);
      else this.endViolations.push(violation);
    }
    return this.endViolations;
  }

  /** Every rule of the checker with the violations of this stream (none: the rule holds). */
  get verdicts(): RuleVerdict[] {
    const byRule = new Map<StreamRule, Violation[]>();
    for (const violation of this.checker.violations) {
      const list = byRule.get(violation.rule) ?? [];
      list.push(violation);
      byRule.set(violation.rule, list);
    }
    return (Object.keys(STREAM_RULES) as StreamRule[]).map((rule) => ({
      rule,
      description: STREAM_RULES[rule],
      violations: byRule.get(rule) ?? [],
    }));
  }

  /** Every violation of the stream, in order. */
  get violations(): readonly Violation[] {
    return this.checker.violations;
  }

  /** The response rebuilt from the events so far. */
  get response() {
    return this.checker.response;
  }

  /** The assistant's text so far: message output text, as the deltas built it. */
  get text(): string {
    let text = '';
    for (const item of this.checker.response?.output ?? []) {
      if (item.type !== 'message') continue;
      for (const part of (item as { content?: Array<{ type: string; text?: string }> }).content ?? [])
        if (part.type === 'output_text' && part.text) text += part.text;
    }
    return text;
  }

  private updateTree(event: EventRecord): void {
    const outputIndex = asNumber(event.output_index);
    const item = outputIndex === undefined ? undefined : this.tree[outputIndex];
    switch (event.type) {
      case 'response.output_item.added': {
        if (outputIndex === undefined) return;
        this.tree[outputIndex] = {
          key: `${outputIndex}`,
          label: itemLabel(event.item),
          kind: 'item',
          state: 'open',
          children: [],
        };
        return;
      }
      case 'response.output_item.done':
        if (item) {
          item.label = itemLabel(event.item);
          item.state = 'done';
        }
        return;
      case 'response.content_part.added':
      case 'response.reasoning_summary_part.added': {
        if (!item) return;
        const kind = event.type === 'response.content_part.added' ? 'content' : 'summary';
        const index = asNumber(event.content_index ?? event.summary_index) ?? item.children.length;
        const part = asRecord(event.part);
        item.children.push({
          key: `${item.key}.${kind}.${index}`,
          label: `${kind}[${index}] ${typeof part.type === 'string' ? part.type : '?'}`,
          kind: 'part',
          state: 'open',
          children: [],
        });
        return;
      }
      case 'response.content_part.done':
      case 'response.reasoning_summary_part.done': {
        const kind = event.type === 'response.content_part.done' ? 'content' : 'summary';
        const index = asNumber(event.content_index ?? event.summary_index);
        const part = item?.children.find((child) => child.key === `${item.key}.${kind}.${index}`);
        if (part) part.state = 'done';
        return;
      }
    }
  }
}

function itemLabel(value: unknown): string {
  const item = asRecord(value);
  const type = typeof item.type === 'string' ? item.type : '?';
  const detail = [item.role, item.name, item.status].filter((part) => typeof part === 'string').join(' ');
  return `${type}${item.id ? ` ${item.id}` : ''}${detail ? ` (${detail})` : ''}`;
}

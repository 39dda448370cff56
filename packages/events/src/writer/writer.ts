import { cloneJson } from '../clone.js';
import { randomId } from './ids.js';
import type {
  Annotation,
  ErrorPayload,
  LogProb,
  OpaqueMember,
  ReasoningBody,
  ResponseResource,
  StreamingEvent,
  StreamingEventByType,
  StreamingEventType,
} from '@openresponses/types';
import { createAccumulator, listOf, type Mutable, type Writable } from '../accumulator/accumulator.js';
import { isVendorType, type VendorEvent } from '../events.js';

/** What the writer sends: spec events, and the vendor events given to `emitVendorEvent`. */
export type WrittenEvent = StreamingEvent | VendorEvent;

/**
 * A spec event as the writer builds it, before emit() numbers it: the generated event type of `T` with its
 * `sequence_number` left open, so a misspelled field, a missing one or a wrong `type` does not compile.
 */
export type EventDraft<T extends StreamingEventType = StreamingEventType> = T extends StreamingEventType
  ? Omit<StreamingEventByType<T>, 'sequence_number'> & { sequence_number?: number }
  : never;

/** output_item.added/done for an item the writer passes through (`addItem`), which the spec's item union may not name. */
type PassedItemDraft = {
  type: 'response.output_item.added' | 'response.output_item.done';
  output_index: number;
  item: OpaqueMember;
  sequence_number?: number;
};

/** An operation the stream's state does not allow (text after its part is done, completing with open items…). */
export class StreamOrderError extends Error {
  /** `'StreamOrderError'`. */
  override name = 'StreamOrderError';
}

/** What `createStreamWriter` takes. */
export interface StreamWriterOptions {
  /** The response as it starts (status `in_progress`, empty output); the writer owns it afterwards. */
  response: ResponseResource;
  /**
   * Receives every event, in order, with its sequence_number set, synchronously. Events are never changed after they are sent, and share unchanging parts (tools, metadata…) with each other: read them, do not mutate them.
   * Without it (nobody watches: a server's JSON answer) the writer builds no events and applies each step to
   * `response` directly; the final response is the same, field for field and in the same key order.
   */
  onEvent?: (event: WrittenEvent) => void;
  /** Id generators for new items (defaults: random `msg_`, `fc_`, `rs_` ids). */
  ids?: Partial<{
    /** A new message id. */
    message(): string;
    /** A new function call id. */
    functionCall(): string;
    /** A new reasoning item id. */
    reasoning(): string;
  }>;
  /** Clock for `completed_at`, in Unix seconds (default: now). */
  now?: () => number;
}

/** An open text part (output text, refusal or reasoning summary): append deltas, then `done()`. */
export interface TextPartWriter {
  /** Appends text; `logprobs` (output text only) are those of the delta's tokens, when the client included them. */
  append(delta: string, logprobs?: LogProb[]): void;
  /** Adds an annotation (a citation) to the text so far: `response.output_text.annotation.added`. */
  annotate(annotation: Annotation): void;
  /** Ends the part: its `.done` event and `content_part.done`. */
  done(): void;
}
/** An open assistant message, from `writer.addMessage()`. */
export interface MessageWriter {
  /** The item's id. */
  readonly id: string;
  /** Opens an `output_text` part. */
  addOutputText(): TextPartWriter;
  /** Opens a `refusal` part. */
  addRefusal(): TextPartWriter;
  /** Ends the message (`output_item.done`); its parts must be done. */
  done(): void;
}
/** An open function call, from `writer.addFunctionCall()`. */
export interface FunctionCallWriter {
  /** The item's id. */
  readonly id: string;
  /** The call id the function's output answers. */
  readonly call_id: string;
  /** Appends to the JSON arguments (`response.function_call_arguments.delta`). */
  appendArguments(delta: string): void;
  /** Ends the call: `function_call_arguments.done`, then `output_item.done`. */
  done(): void;
}
/** An open reasoning item, from `writer.addReasoning()`. */
export interface ReasoningWriter {
  /** The item's id. */
  readonly id: string;
  /** Opens a summary part (`response.reasoning_summary_part.added`). */
  addSummaryPart(): TextPartWriter;
  /** Appends raw reasoning text (`response.reasoning.delta`). */
  appendContent(delta: string): void;
  /** Ends the item, with its `encrypted_content` when there is one. */
  done(final?: { encrypted_content?: string }): void;
}

/** Emits a valid event stream for one response: every event in an order the stream checker accepts. */
export interface StreamWriter {
  /** The response so far: exactly what an accumulator of the emitted events holds. */
  readonly response: ResponseResource;
  /** response.created, then response.in_progress. */
  start(): void;
  /** Opens an assistant message item. */
  addMessage(init?: { id?: string; phase?: 'commentary' | 'final_answer' }): MessageWriter;
  /** Opens a function call item. */
  addFunctionCall(init: { name: string; call_id: string; id?: string }): FunctionCallWriter;
  /** Opens a reasoning item. */
  addReasoning(init?: { id?: string }): ReasoningWriter;
  /** Sends a vendor event (`acme:trace`), numbered in sequence; only while the response is in progress. */
  emitVendorEvent(event: { type: `${string}:${string}`; [key: string]: unknown }): void;
  /**
   * Any other item, such as a vendor item (`acme:search_result`): output_item.added with status
   * `in_progress`, then `done(final)` sends output_item.done with status `completed` and the final fields.
   */
  addItem(item: { type: string; id: string; [key: string]: unknown }): {
    /** The item's id. */
    readonly id: string;
    /** Ends the item: `output_item.done` with status `completed` and `final`'s fields. */
    done(final?: Record<string, unknown>): void;
  };
  /** response.completed. Throws while an item is open. */
  complete(patch?: Partial<ResponseResource>): ResponseResource;
  /** Closes open parts and items as incomplete, then response.incomplete with `incomplete_details.reason`. */
  incomplete(reason: string, patch?: Partial<ResponseResource>): ResponseResource;
  /**
   * Closes the open item as incomplete, then an `error` event, then response.failed carrying the error (and
   * `patch`, such as the usage so far).
   */
  fail(
    error: { type: string; code: string | null; message: string; param?: string | null },
    patch?: Partial<ResponseResource>,
  ): ResponseResource;
}

type Phase = 'new' | 'streaming' | 'ended';

const DEFAULT_IDS = {
  message: () => randomId('msg'),
  functionCall: () => randomId('fc'),
  reasoning: () => randomId('rs'),
};
const unixNow = () => Math.floor(Date.now() / 1000);

/**
 * The one way servers emit events. High-level calls produce correct sequence numbers, indices, ids and
 * `.done` payloads; calls the stream's state does not allow throw StreamOrderError. Items stream one
 * after another: finish one before adding the next.
 */
export function createStreamWriter(options: StreamWriterOptions): StreamWriter {
  // The defaults are made once, not per writer (a writer a turn).
  const ids = options.ids ? { ...DEFAULT_IDS, ...options.ids } : DEFAULT_IDS;
  const now = options.now ?? unixNow;
  const { onEvent } = options;
  // Unwatched (no onEvent), the writer edits `initial` in place with the values its events would carry,
  // which the accumulator would have folded into a copy: no event objects, no copies of items.
  const accumulator = onEvent ? createAccumulator() : undefined;
  let sequence = 0;
  let phase: Phase = 'new';
  // The writer owns the response it is given (see `StreamWriterOptions.response`): no copy.
  const initial: ResponseResource = options.response;
  /** The unwatched writer's output items (`initial.output` once started), edited in place: vendor items too. */
  let output: Mutable[] = [];
  /** Closes the open item (and its open part) as incomplete; set while an item is open. */
  let closeOpenItem: ((status: 'incomplete') => void) | undefined;

  /** Numbers and sends an event object the writer has just built (no copy: spreading every event was a fifth of the writer's time). */
  const send = (draft: EventDraft | PassedItemDraft | VendorEvent) => {
    draft.sequence_number = sequence++;
    // Numbered just above: the draft is now the event its type names.
    const event = draft as WrittenEvent;
    accumulator!.push(event);
    writer.response = snapshot();
    onEvent!(event);
  };
  /** Sends a spec event the writer built: the only way the writer's own events go out, so each is typed. */
  const emit: (draft: EventDraft) => void = send;
  const snapshot = () => accumulator?.response ?? initial;
  const requireStreaming = (what: string) => {
    if (phase === 'new') throw new StreamOrderError(`${what} before start()`);
    if (phase === 'ended') throw new StreamOrderError(`${what} after the response ended`);
  };
  const openItem = (what: string) => {
    requireStreaming(what);
    if (closeOpenItem) throw new StreamOrderError(`${what} while another item is still open: finish it first`);
    return snapshot().output.length;
  };

  /** Starts the item at `outputIndex`: output_item.added, or (unwatched) the item itself in the output. */
  const addItemAt = (outputIndex: number, item: OpaqueMember) => {
    if (onEvent) send({ type: 'response.output_item.added', output_index: outputIndex, item });
    else output[outputIndex] = item;
  };
  /** Starts a content (or summary) part: its `.added` event, or (unwatched) the part in its item; answers the latter. */
  const addPartAt = (
    outputIndex: number,
    key: 'content' | 'summary',
    index: number,
    part: Mutable,
    added: () => void,
  ): Mutable | undefined => {
    if (onEvent) {
      added();
      return undefined;
    }
    listOf(output[outputIndex], key)![index] = part;
    return part;
  };

  const finishItem = (outputIndex: number, status: 'completed' | 'incomplete', extra: Record<string, unknown> = {}) => {
    if (!onEvent) {
      // The fields the done event's item would carry, in the same order (extra ones last), on the item itself.
      const item = Object.assign(output[outputIndex]!, extra);
      if ('status' in item) item.status = status;
      closeOpenItem = undefined;
      return;
    }
    // The snapshot's item itself, final from here on (nothing the writer sends later touches it): the
    // accumulator keeps it in place rather than copying it again (its parts are the accumulator's own copies).
    // Typed as what it may be: the writer's own items, or one passed through addItem.
    const item: OpaqueMember = Object.assign(snapshot().output[outputIndex] as OpaqueMember, extra);
    if ('status' in item) item.status = status;
    send({ type: 'response.output_item.done', output_index: outputIndex, item });
    closeOpenItem = undefined;
  };

  // `response` is a data property kept current by emit(), not a getter: on Node 20 an object literal
  // with an accessor costs a fresh hidden class per instance, which the garbage collector then chases.
  const writer: Writable<StreamWriter> = {
    response: initial,
    start() {
      if (phase !== 'new') throw new StreamOrderError('start() called twice');
      phase = 'streaming';
      // The writer owns `initial` and never changes it after this, so both events carry it as it is (copies of
      // a 30-field response cost more than the rest of a short turn's events); the accumulator keeps its own.
      initial.status = 'in_progress';
      initial.output = [];
      if (!onEvent) {
        output = initial.output as unknown as Mutable[];
        return;
      }
      emit({ type: 'response.created', response: initial });
      emit({ type: 'response.in_progress', response: initial });
    },

    addMessage(init = {}) {
      const outputIndex = openItem('addMessage');
      const id = init.id ?? ids.message();
      addItemAt(outputIndex, {
        type: 'message',
        id,
        status: 'in_progress',
        role: 'assistant',
        content: [],
        ...(init.phase ? { phase: init.phase } : {}),
      });
      let parts = 0;
      let openPart: TextPart | undefined;
      const addPart = (kind: 'output_text' | 'refusal') => {
        if (closeOpenItem !== close) throw new StreamOrderError('the message is done');
        if (openPart && !openPart.closed)
          throw new StreamOrderError('another content part of this message is still open');
        const index = parts++;
        const part =
          kind === 'output_text'
            ? { type: 'output_text' as const, text: '', annotations: [], logprobs: [] }
            : { type: 'refusal' as const, refusal: '' };
        const target = addPartAt(outputIndex, 'content', index, part, () =>
          emit({
            type: 'response.content_part.added',
            item_id: id,
            output_index: outputIndex,
            content_index: index,
            part,
          }),
        );
        openPart = new TextPart(kind, id, outputIndex, index, target, emit, snapshot);
        return openPart;
      };
      const close = (status: 'completed' | 'incomplete') => {
        if (openPart && !openPart.closed) {
          if (status === 'completed') throw new StreamOrderError('a content part of this message is still open');
          openPart.done();
        }
        finishItem(outputIndex, status);
      };
      closeOpenItem = close;
      return {
        id,
        addOutputText: () => addPart('output_text'),
        addRefusal: () => addPart('refusal'),
        done() {
          if (closeOpenItem !== close) throw new StreamOrderError('the message is already done');
          close('completed');
        },
      };
    },

    addFunctionCall(init) {
      const outputIndex = openItem('addFunctionCall');
      const id = init.id ?? ids.functionCall();
      const item = {
        type: 'function_call' as const,
        id,
        call_id: init.call_id,
        name: init.name,
        arguments: '',
        status: 'in_progress' as 'in_progress' | 'completed' | 'incomplete',
      };
      addItemAt(outputIndex, item);
      let args = '';
      const close = (status: 'completed' | 'incomplete') => {
        if (onEvent)
          emit({
            type: 'response.function_call_arguments.done',
            item_id: id,
            output_index: outputIndex,
            arguments: args,
          });
        finishItem(outputIndex, status);
      };
      closeOpenItem = close;
      return {
        id,
        call_id: init.call_id,
        appendArguments(delta: string) {
          if (closeOpenItem !== close) throw new StreamOrderError('appendArguments after the function call was done');
          args += delta;
          if (onEvent)
            emit({ type: 'response.function_call_arguments.delta', item_id: id, output_index: outputIndex, delta });
          else item.arguments = args;
        },
        done() {
          if (closeOpenItem !== close) throw new StreamOrderError('the function call is already done');
          close('completed');
        },
      };
    },

    addReasoning(init = {}) {
      const outputIndex = openItem('addReasoning');
      const id = init.id ?? ids.reasoning();
      // The spec's ReasoningBody has no status; the stream rules (item-status) want one on every item.
      const item: ReasoningBody & { status: 'in_progress' } = {
        type: 'reasoning',
        id,
        summary: [],
        status: 'in_progress',
      };
      addItemAt(outputIndex, item);
      let summaries = 0;
      let openPart: TextPart | undefined;
      let content: string | undefined;
      /** The unwatched writer's raw reasoning part. */
      let contentPart: Mutable | undefined;
      // Raw reasoning is streamable content, which the spec says MUST be backed by a content part.
      const finishContent = () => {
        if (content === undefined || !onEvent) return;
        emit({
          type: 'response.reasoning.done',
          item_id: id,
          output_index: outputIndex,
          content_index: 0,
          text: content,
        });
        emit({
          type: 'response.content_part.done',
          item_id: id,
          output_index: outputIndex,
          content_index: 0,
          part: { type: 'reasoning_text', text: content },
        });
      };
      const close = (status: 'completed' | 'incomplete', final: { encrypted_content?: string } = {}) => {
        if (openPart && !openPart.closed) {
          if (status === 'completed') throw new StreamOrderError('a summary part of this reasoning item is still open');
          openPart.done();
        }
        finishContent();
        finishItem(
          outputIndex,
          status,
          final.encrypted_content !== undefined ? { encrypted_content: final.encrypted_content } : {},
        );
      };
      closeOpenItem = close;
      return {
        id,
        addSummaryPart() {
          if (closeOpenItem !== close) throw new StreamOrderError('the reasoning item is done');
          if (openPart && !openPart.closed) throw new StreamOrderError('another summary part is still open');
          const index = summaries++;
          const part = { type: 'summary_text' as const, text: '' };
          const target = addPartAt(outputIndex, 'summary', index, part, () =>
            emit({
              type: 'response.reasoning_summary_part.added',
              item_id: id,
              output_index: outputIndex,
              summary_index: index,
              part,
            }),
          );
          openPart = new TextPart('summary', id, outputIndex, index, target, emit, snapshot);
          return openPart;
        },
        appendContent(delta: string) {
          if (closeOpenItem !== close) throw new StreamOrderError('appendContent after the reasoning item was done');
          if (content === undefined) {
            const part = { type: 'reasoning_text' as const, text: '' };
            contentPart = addPartAt(outputIndex, 'content', 0, part, () =>
              emit({
                type: 'response.content_part.added',
                item_id: id,
                output_index: outputIndex,
                content_index: 0,
                part,
              }),
            );
          }
          content = (content ?? '') + delta;
          if (contentPart) contentPart.text = content;
          else
            emit({ type: 'response.reasoning.delta', item_id: id, output_index: outputIndex, content_index: 0, delta });
        },
        done(final) {
          if (closeOpenItem !== close) throw new StreamOrderError('the reasoning item is already done');
          close('completed', final);
        },
      };
    },

    addItem(item) {
      const outputIndex = openItem('addItem');
      addItemAt(outputIndex, Object.assign(cloneJson(item), { status: 'in_progress' }));
      const close = (status: 'completed' | 'incomplete', final: Record<string, unknown> = {}) =>
        finishItem(outputIndex, status, final);
      closeOpenItem = close;
      return {
        id: item.id,
        done(final) {
          if (closeOpenItem !== close) throw new StreamOrderError('the item is already done');
          close('completed', final);
        },
      };
    },

    emitVendorEvent(event) {
      requireStreaming('emitVendorEvent');
      if (!isVendorType(event.type))
        throw new StreamOrderError(`vendor event types carry a slug prefix (acme:thing), got "${event.type}"`);
      // The writer's accumulator folds no vendor event: unwatched, one changes nothing.
      if (onEvent) send(Object.assign({}, event));
    },

    complete(patch = {}) {
      requireStreaming('complete');
      if (closeOpenItem) throw new StreamOrderError('complete() while an item is still open');
      return end(
        'response.completed',
        Object.assign({}, patch, { status: 'completed', completed_at: now(), incomplete_details: null, error: null }),
      );
    },

    incomplete(reason, patch = {}) {
      requireStreaming('incomplete');
      closeOpenItem?.('incomplete');
      return end(
        'response.incomplete',
        Object.assign({}, patch, { status: 'incomplete', incomplete_details: { reason }, error: null }),
      );
    },

    fail(error, patch = {}) {
      requireStreaming('fail');
      const payload: ErrorPayload = {
        type: error.type,
        code: error.code,
        message: error.message,
        param: error.param ?? null,
      };
      // The open item ends first (incomplete), as on response.incomplete: a client that reads items only from
      // output_item.done (the Codex CLI) never holds an item that did not end.
      closeOpenItem?.('incomplete');
      if (onEvent) emit({ type: 'error', error: payload });
      return end(
        'response.failed',
        Object.assign({}, patch, {
          status: 'failed',
          error: { code: error.code ?? error.type, message: error.message },
        }),
      );
    },
  };

  const end = (
    type: 'response.completed' | 'response.incomplete' | 'response.failed',
    patch: Partial<ResponseResource>,
  ): ResponseResource => {
    phase = 'ended';
    // Unwatched: the terminal event's response, field for field, is the response itself.
    if (!onEvent) return Object.assign(initial, patch, { output });
    // A spread, not Object.assign into {}: V8 clones the snapshot's map at once instead of adding ~30 properties
    // one by one through its generic path (~7.6k instructions a watched turn). The same keys in the same order.
    const current = snapshot();
    const response = { ...current, ...patch, output: current.output };
    // The snapshot's own output, which the accumulator keeps in place (see its `end`): no one changes it after this.
    emit({ type, response });
    return snapshot();
  };

  return writer;
}

type TextKind = 'output_text' | 'refusal' | 'summary';

/**
 * An open text part (output text, refusal or reasoning summary) of one writer. A class: a part is one object
 * with its methods on the prototype, where closures over its state made six objects a part.
 */
class TextPart implements TextPartWriter {
  private text = '';
  private annotations = 0;
  /** Whether `done()` was called. */
  closed = false;
  private readonly logprobs: LogProb[];

  constructor(
    private readonly kind: TextKind,
    private readonly itemId: string,
    private readonly outputIndex: number,
    private readonly index: number,
    /** The part in the unwatched writer's response, whose text (and logprobs) it keeps current. */
    private readonly target: Mutable | undefined,
    private readonly emit: (draft: EventDraft) => void,
    private readonly snapshot: () => ResponseResource,
  ) {
    this.logprobs = target ? ((target.logprobs as LogProb[] | undefined) ?? []) : [];
  }

  private guard(what: string): void {
    if (this.closed) throw new StreamOrderError(`${what} after the part was done`);
  }

  append(delta: string, deltaLogprobs?: LogProb[]): void {
    this.guard('append');
    const text = (this.text += delta);
    if (deltaLogprobs) this.logprobs.push(...deltaLogprobs);
    const { kind, target } = this;
    if (target) {
      target[kind === 'refusal' ? 'refusal' : 'text'] = text;
      return;
    }
    // Spelled out rather than spread from a position: this runs for every delta.
    if (kind === 'output_text')
      this.emit({
        type: 'response.output_text.delta',
        item_id: this.itemId,
        output_index: this.outputIndex,
        content_index: this.index,
        delta,
        logprobs: deltaLogprobs ?? [],
      });
    else if (kind === 'refusal')
      this.emit({
        type: 'response.refusal.delta',
        item_id: this.itemId,
        output_index: this.outputIndex,
        content_index: this.index,
        delta,
      });
    else
      this.emit({
        type: 'response.reasoning_summary_text.delta',
        item_id: this.itemId,
        output_index: this.outputIndex,
        summary_index: this.index,
        delta,
      });
  }

  annotate(annotation: Annotation): void {
    this.guard('annotate');
    if (this.kind !== 'output_text') throw new StreamOrderError('only output text carries annotations');
    if (this.target) {
      (this.target.annotations as Annotation[])[this.annotations++] = cloneJson(annotation);
      return;
    }
    this.emit({
      type: 'response.output_text.annotation.added',
      item_id: this.itemId,
      output_index: this.outputIndex,
      content_index: this.index,
      annotation_index: this.annotations++,
      annotation,
    });
  }

  done(): void {
    this.guard('done');
    this.closed = true;
    if (this.target) return;
    const { kind, text, itemId: item_id, outputIndex: output_index, index } = this;
    if (kind === 'output_text') {
      this.emit({
        type: 'response.output_text.done',
        item_id,
        output_index,
        content_index: index,
        text,
        logprobs: this.logprobs,
      });
      // The part as the accumulator built it, annotations and logprobs included, final from here on: the
      // accumulator keeps it in place rather than copying it again.
      const item = this.snapshot().output[output_index];
      const part = item?.type === 'message' ? item.content[index] : undefined;
      if (part?.type !== 'output_text') throw new Error(`the snapshot lost output text part ${index}`);
      this.emit({ type: 'response.content_part.done', item_id, output_index, content_index: index, part });
    } else if (kind === 'refusal') {
      this.emit({ type: 'response.refusal.done', item_id, output_index, content_index: index, refusal: text });
      this.emit({
        type: 'response.content_part.done',
        item_id,
        output_index,
        content_index: index,
        part: { type: 'refusal', refusal: text },
      });
    } else {
      this.emit({ type: 'response.reasoning_summary_text.done', item_id, output_index, summary_index: index, text });
      this.emit({
        type: 'response.reasoning_summary_part.done',
        item_id,
        output_index,
        summary_index: index,
        part: { type: 'summary_text', text },
      });
    }
  }
}

export type { StreamingEvent };

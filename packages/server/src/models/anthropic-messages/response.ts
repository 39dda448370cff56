import { ResponsesError } from '../../errors.js';
import type { FinishReason, ModelPart, ModelUsage } from '../provider.js';
import type { ThinkingState } from './request.js';
import type { AnthropicContentBlock, AnthropicMessage, AnthropicStreamEvent, AnthropicUsage } from './wire.js';
import { upstreamError } from './errors.js';

/** The text of the refusal part a `refusal` stop reason adds (Anthropic sends no wording of its own). */
export const REFUSAL_TEXT = 'The model declined to continue this request.';

type OpenBlock =
  /** `message`: the message item its text joins (ended when another kind of block starts). */
  | { kind: 'text'; message: string }
  | { kind: 'thinking'; id: string; thinking: string; signature: string }
  | { kind: 'tool'; id: string; sentArguments: boolean }
  | { kind: 'skipped' };

/**
 * Turns Messages stream events into provider parts as they arrive. Adjacent text blocks make one message
 * (Anthropic splits text at citations); a thinking block is a reasoning item whose text is its raw
 * `content`, and whose signature (or a `redacted_thinking` block's data) ends it as the item's `state`,
 * which the turn runner seals into `encrypted_content`; a `tool_use` block is a function call keeping
 * Anthropic's id as `call_id`, its input streamed from `input_json_delta`s. Block types this gateway does
 * not know (server tools) are skipped. Usage comes from `message_start` and the last `message_delta`.
 */
export class StreamTranslator {
  private readonly blocks = new Map<number, OpenBlock>();
  /** The message item adjacent text blocks join, while one is open. */
  private message: string | undefined;
  private messages = 0;
  private usage: AnthropicUsage = {};
  private stopReason: string | null | undefined;
  private stopped = false;

  /** The parts one event makes (appended to `out`); a mid-stream `error` event throws its spec error. */
  push(event: AnthropicStreamEvent, out: ModelPart[]): void {
    switch (event.type) {
      case 'message_start':
        this.addUsage(event.message.usage);
        break;
      case 'content_block_start':
        this.start(event.index, event.content_block, out);
        break;
      case 'content_block_delta': {
        const block = this.blocks.get(event.index);
        if (!block) throw invalidStream(`a delta for content block ${event.index}, which was not started`);
        const delta = event.delta as {
          type: string;
          text?: string;
          partial_json?: string;
          thinking?: string;
          signature?: string;
        };
        if (delta.type === 'text_delta' && block.kind === 'text') {
          // Blocks come one after another: text for a block whose message another block has ended is out of order.
          if (block.message !== this.message)
            throw invalidStream(`text for content block ${event.index} after another block began`);
          if (delta.text) out.push({ type: 'text-delta', id: block.message, delta: delta.text });
        } else if (delta.type === 'input_json_delta' && block.kind === 'tool') {
          if (delta.partial_json) {
            block.sentArguments = true;
            out.push({ type: 'function-call-delta', id: block.id, delta: delta.partial_json });
          }
        } else if (delta.type === 'thinking_delta' && block.kind === 'thinking') {
          block.thinking += delta.thinking;
          if (delta.thinking) out.push({ type: 'reasoning-delta', id: block.id, delta: delta.thinking });
        } else if (delta.type === 'signature_delta' && block.kind === 'thinking') block.signature += delta.signature;
        else if (['text_delta', 'input_json_delta', 'thinking_delta', 'signature_delta'].includes(delta.type))
          throw invalidStream(`a ${delta.type} for a ${block.kind} block`);
        // citations_delta and delta types added later: nothing to show.
        break;
      }
      case 'content_block_stop': {
        const block = this.blocks.get(event.index);
        if (!block) throw invalidStream(`the end of content block ${event.index}, which was not started`);
        this.blocks.delete(event.index);
        this.stop(block, out);
        break;
      }
      case 'message_delta':
        if (event.delta.stop_reason !== undefined) this.stopReason = event.delta.stop_reason;
        this.addUsage(event.usage);
        break;
      case 'message_stop':
        this.stopped = true;
        break;
      case 'ping':
        break;
      case 'error':
        throw upstreamError(event.error.type, event.error.message ?? '', undefined, true);
    }
  }

  /** Whether `message_stop` arrived (the stream is whole). */
  get complete(): boolean {
    return this.stopped;
  }

  /** The end of the stream: closes what is open and finishes; a stream without `message_stop` was cut. */
  finish(out: ModelPart[]): void {
    if (!this.stopped)
      throw new ResponsesError(
        'model_error',
        'upstream_stream_cut',
        'The upstream model stream ended before the model finished; the answer is incomplete.',
      );
    const reason = finishReason(this.stopReason);
    if (reason === 'length') {
      // Cut short: what is open stays open, and the turn runner ends it as incomplete.
      out.push({ type: 'finish', reason, usage: usageOf(this.usage) });
      return;
    }
    for (const [index, block] of [...this.blocks].sort(([a], [b]) => a - b)) {
      this.blocks.delete(index);
      this.stop(block, out);
    }
    this.endMessage(out);
    if (this.stopReason === 'refusal') {
      const id = `refusal:${this.messages}`;
      out.push(
        { type: 'refusal-start', id },
        { type: 'refusal-delta', id, delta: REFUSAL_TEXT },
        { type: 'refusal-end', id },
      );
    }
    out.push({ type: 'finish', reason, usage: usageOf(this.usage) });
  }

  private start(index: number, block: AnthropicContentBlock, out: ModelPart[]): void {
    if (this.blocks.has(index)) throw invalidStream(`content block ${index} started twice`);
    const id = `block:${index}`;
    switch (block.type) {
      case 'text': {
        if (this.message === undefined) {
          this.message = `message:${++this.messages}`;
          out.push({ type: 'text-start', id: this.message });
        }
        this.blocks.set(index, { kind: 'text', message: this.message });
        const text = (block as { text: string }).text;
        if (text) out.push({ type: 'text-delta', id: this.message, delta: text });
        return;
      }
      case 'thinking': {
        this.endMessage(out);
        const { thinking, signature } = block as { thinking: string; signature?: string | null };
        this.blocks.set(index, { kind: 'thinking', id, thinking, signature: signature ?? '' });
        out.push({ type: 'reasoning-start', id });
        if (thinking) out.push({ type: 'reasoning-delta', id, delta: thinking });
        return;
      }
      case 'redacted_thinking': {
        this.endMessage(out);
        const state: ThinkingState = { kind: 'redacted', data: (block as { data: string }).data };
        // Nothing to show and nothing more to come: the item starts and ends here, carrying its data.
        this.blocks.set(index, { kind: 'skipped' });
        out.push({ type: 'reasoning-start', id }, { type: 'reasoning-end', id, state });
        return;
      }
      case 'tool_use': {
        this.endMessage(out);
        const tool = block as { id: string; name: string; input: unknown };
        const open: OpenBlock = { kind: 'tool', id, sentArguments: false };
        this.blocks.set(index, open);
        out.push({ type: 'function-call-start', id, name: tool.name, callId: tool.id });
        // A whole message carries the input as an object; a stream starts it as {} and sends the JSON in deltas.
        if (tool.input && typeof tool.input === 'object' && Object.keys(tool.input).length > 0) {
          open.sentArguments = true;
          out.push({ type: 'function-call-delta', id, delta: JSON.stringify(tool.input) });
        }
        return;
      }
      default:
        this.blocks.set(index, { kind: 'skipped' });
    }
  }

  private stop(block: OpenBlock, out: ModelPart[]): void {
    switch (block.kind) {
      case 'thinking':
        if (!block.signature) throw invalidStream('a thinking block without its signature');
        out.push({
          type: 'reasoning-end',
          id: block.id,
          state: { kind: 'thinking', thinking: block.thinking, signature: block.signature } satisfies ThinkingState,
        });
        return;
      case 'tool':
        // A tool without parameters streams no input: its arguments are an empty object.
        if (!block.sentArguments) out.push({ type: 'function-call-delta', id: block.id, delta: '{}' });
        out.push({ type: 'function-call-end', id: block.id });
        return;
      default:
        return;
    }
  }

  private endMessage(out: ModelPart[]): void {
    if (this.message === undefined) return;
    out.push({ type: 'text-end', id: this.message });
    this.message = undefined;
  }

  private addUsage(usage: AnthropicUsage | null | undefined): void {
    if (!usage) return;
    // message_delta's counts are cumulative: a later value replaces an earlier one.
    for (const [key, value] of Object.entries(usage))
      if (value != null) (this.usage as Record<string, unknown>)[key] = value;
  }
}

/** A whole message as parts, in the order a stream would have given them. */
export function messageParts(message: AnthropicMessage): ModelPart[] {
  const translator = new StreamTranslator();
  const out: ModelPart[] = [];
  translator.push({ type: 'message_start', message: { ...message, content: [] } }, out);
  message.content.forEach((block, index) => {
    translator.push({ type: 'content_block_start', index, content_block: block }, out);
    translator.push({ type: 'content_block_stop', index }, out);
  });
  translator.push(
    { type: 'message_delta', delta: { stop_reason: message.stop_reason ?? 'end_turn' }, usage: null },
    out,
  );
  translator.push({ type: 'message_stop' }, out);
  translator.finish(out);
  return out;
}

/**
 * Stop reasons: `end_turn`, `stop_sequence`, `tool_use` complete the response (`pause_turn`, which only
 * Anthropic's server tools cause, too: this family declares none); `max_tokens` and
 * `model_context_window_exceeded` end it incomplete (`max_output_tokens`); `refusal` completes it with a
 * refusal part.
 */
function finishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    default:
      return 'stop';
  }
}

/** Anthropic counts cache reads and writes apart from `input_tokens`; the spec's input tokens include them. */
function usageOf(usage: AnthropicUsage): ModelUsage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  return {
    inputTokens: (usage.input_tokens ?? 0) + cacheRead + (usage.cache_creation_input_tokens ?? 0),
    outputTokens: usage.output_tokens ?? 0,
    reasoningTokens: usage.output_tokens_details?.thinking_tokens ?? 0,
    cachedInputTokens: cacheRead,
  };
}

const invalidStream = (what: string) =>
  new ResponsesError('model_error', 'upstream_invalid_chunk', `The upstream sent ${what}.`);

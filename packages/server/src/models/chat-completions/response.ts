import { ResponsesError } from '../../errors.js';
import type { LogProb } from '@openresponses/types';
import type { FinishReason, ModelPart, ModelUsage } from '../provider.js';
import { isChatChunk, isChatCompletion } from './wire-check.js';
import {
  type ChatChunk,
  type ChatCompletion,
  type ChatTokenLogprob,
  type ChatUsage,
  chunkSchema,
  completionSchema,
  describeIssue,
} from './wire.js';

const REASONING = 'reasoning';
const TEXT = 'text';
const REFUSAL = 'refusal';
type Kind = typeof REASONING | typeof TEXT | typeof REFUSAL;
/** Each kind's part types, made once (a template made a string for every part). */
const PART_TYPES = {
  reasoning: { start: 'reasoning-start', delta: 'reasoning-delta', end: 'reasoning-end' },
  text: { start: 'text-start', delta: 'text-delta', end: 'text-end' },
  refusal: { start: 'refusal-start', delta: 'refusal-delta', end: 'refusal-end' },
} as const;

/**
 * One kind's open item: its id while open, and the kind's part types. Every kind is one shape read by named
 * fields, so each read is monomorphic: `open[kind]` and `PART_TYPES[kind]` were keyed loads by three names,
 * megamorphic where V8 did not inline the kind (~0.5k instructions a gateway turn).
 */
class OpenItem {
  id: string | undefined = undefined;
  readonly types: (typeof PART_TYPES)[Kind];
  constructor(readonly kind: Kind) {
    this.types = PART_TYPES[kind];
  }
}

/**
 * Turns streamed `chat.completion.chunk`s into provider parts as they arrive: `reasoning_content` (or
 * `reasoning`) deltas into a reasoning item, `content` into a message, `refusal` into a refusal,
 * `tool_calls` fragments into function calls keyed by their `index` (several may interleave; a call
 * starts once its name is known). Usage arrives in the last chunk (`stream_options.include_usage`).
 * With `logprobs` (the `include` entry that asked for them, `include[0]`), each `content` delta carries the
 * chunk's `logprobs.content` tokens; an upstream that sends text without them cannot honour that include,
 * which is refused (400 naming it) rather than answered without them.
 */
export class ChunkTranslator {
  /** The open reasoning, text and refusal items (a field each, not a Map: a hash lookup or two each delta). */
  private readonly reasoning = new OpenItem(REASONING);
  private readonly message = new OpenItem(TEXT);
  private readonly refusal = new OpenItem(REFUSAL);
  private items = 0;
  private readonly calls = new Map<
    number,
    { id: string | undefined; name: string | undefined; held: string; started: boolean }
  >();
  private reason: FinishReason | undefined;
  private usage: ChatUsage | undefined;

  constructor(private readonly logprobs?: string) {}

  /**
   * The parts one chunk makes (appended to `out`): the chunk as the upstream sent it (parsed JSON), checked
   * against the wire schema first; one that breaks it is a `model_error` and adds nothing.
   */
  push(raw: unknown, out: ModelPart[]): void {
    if (isChatChunk(raw)) {
      this.translate(raw, out);
      return;
    }
    // Refused by the fast check: Zod's parse says why (and would answer a value the check wrongly refused).
    const parsed = chunkSchema.safeParse(raw);
    if (!parsed.success)
      throw new ResponsesError(
        'model_error',
        'upstream_invalid_chunk',
        `The upstream sent a chunk that is not a valid chat.completion.chunk (${describeIssue(parsed.error)}).`,
      );
    this.translate(parsed.data, out);
  }

  /** The parts a chunk already checked against the wire schema makes. */
  translate(chunk: ChatChunk, out: ModelPart[]): void {
    if (chunk.error) throw upstreamStreamError(chunk.error);
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta;
    if (delta) {
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === 'string' && reasoning !== '') this.text(this.reasoning, reasoning, out);
      if (typeof delta.content === 'string' && delta.content !== '')
        this.text(this.message, delta.content, out, this.logprobs ? this.tokens(choice.logprobs?.content) : undefined);
      if (typeof delta.refusal === 'string' && delta.refusal !== '') this.text(this.refusal, delta.refusal, out);
      if (delta.tool_calls) {
        this.end(this.reasoning, out);
        for (const fragment of delta.tool_calls) {
          const index = fragment.index ?? 0;
          let call = this.calls.get(index);
          if (!call) this.calls.set(index, (call = { id: undefined, name: undefined, held: '', started: false }));
          if (fragment.id) call.id = fragment.id;
          if (fragment.function?.name) call.name = (call.name ?? '') + fragment.function.name;
          const args = fragment.function?.arguments ?? '';
          const id = `call:${index}`;
          if (!call.started && call.name) {
            call.started = true;
            out.push(
              Object.assign(
                { type: 'function-call-start' as const, id, name: call.name },
                call.id ? { callId: call.id } : {},
              ),
            );
            if (call.held) out.push({ type: 'function-call-delta', id, delta: call.held });
            call.held = '';
          }
          if (args === '') continue;
          if (call.started) out.push({ type: 'function-call-delta', id, delta: args });
          else call.held += args;
        }
      }
    }
    if (choice.finish_reason) this.reason = finishReason(choice.finish_reason);
  }

  /** The end of the stream: closes what is open and finishes; a stream without a finish reason was cut. */
  finish(out: ModelPart[]): void {
    if (this.reason === undefined)
      throw new ResponsesError(
        'model_error',
        'upstream_stream_cut',
        'The upstream model stream ended before the model finished; the answer is incomplete.',
      );
    if (this.reason === 'length' || this.reason === 'content_filter') {
      // Cut short: what is open stays open, and the turn runner ends it as incomplete.
      out.push({ type: 'finish', reason: this.reason, usage: usageOf(this.usage) });
      return;
    }
    this.end(this.reasoning, out);
    this.end(this.message, out);
    this.end(this.refusal, out);
    if (this.calls.size > 0) this.endCalls(out);
    out.push({ type: 'finish', reason: this.reason, usage: usageOf(this.usage) });
  }

  /** Ends the function calls, by index (copied and sorted only when there are calls). */
  private endCalls(out: ModelPart[]): void {
    for (const [index, call] of [...this.calls].sort(([a], [b]) => a - b)) {
      if (!call.started)
        throw new ResponsesError(
          'model_error',
          'upstream_invalid_tool_call',
          `The upstream streamed tool call ${index} without a name.`,
        );
      out.push({ type: 'function-call-end', id: `call:${index}` });
    }
  }

  private text(item: OpenItem, delta: string, out: ModelPart[], logprobs?: LogProb[]): void {
    // Reasoning comes first; once the answer starts, the reasoning item is done.
    if (item !== this.reasoning) this.end(this.reasoning, out);
    let id = item.id;
    if (id === undefined) {
      // A kind that comes back after its item ended (reasoning after a tool call) is a new item.
      id = `${item.kind}:${++this.items}`;
      item.id = id;
      out.push({ type: item.types.start, id });
    }
    if (logprobs) out.push({ type: 'text-delta', id, delta, logprobs });
    else out.push({ type: item.types.delta, id, delta });
  }

  private tokens(tokens: ChatTokenLogprob[] | null | undefined): LogProb[] {
    if (!tokens)
      throw new ResponsesError(
        'invalid_request',
        'unsupported_include',
        'The upstream model answered without token log probabilities, so message.output_text.logprobs cannot be included.',
        this.logprobs ?? null,
      );
    return toLogProbs(tokens);
  }

  private end(item: OpenItem, out: ModelPart[]): void {
    const id = item.id;
    if (id === undefined) return;
    item.id = undefined;
    out.push({ type: item.types.end, id });
  }
}

/**
 * A whole completion (the upstream's parsed JSON, checked against the wire schema first) as parts, in the
 * order a stream would have given them.
 */
export function completionParts(raw: unknown, logprobs?: string): ModelPart[] {
  const completion = isChatCompletion(raw) ? raw : checkedCompletion(raw);
  const choice = completion.choices[0];
  if (!choice?.message)
    throw new ResponsesError('model_error', 'upstream_invalid_response', 'The upstream answered without a choice.');
  const { message } = choice;
  const translator = new ChunkTranslator(logprobs);
  const out: ModelPart[] = [];
  translator.translate(
    {
      choices: [
        {
          delta: {
            reasoning_content: message.reasoning_content ?? message.reasoning ?? null,
            content: message.content ?? null,
            refusal: message.refusal ?? null,
            tool_calls: (message.tool_calls ?? []).map((call, index) => ({
              index,
              id: call.id,
              function: { name: call.function.name, arguments: call.function.arguments },
            })),
          },
          logprobs: choice.logprobs ?? null,
          finish_reason: choice.finish_reason ?? 'stop',
        },
      ],
      usage: completion.usage ?? null,
    },
    out,
  );
  translator.finish(out);
  return out;
}

/** A completion the fast check refused, through Zod's parse: its error says why. */
function checkedCompletion(raw: unknown): ChatCompletion {
  const parsed = completionSchema.safeParse(raw);
  if (!parsed.success)
    throw new ResponsesError(
      'model_error',
      'upstream_invalid_response',
      `The upstream answer is not a valid chat.completion (${describeIssue(parsed.error)}).`,
    );
  return parsed.data;
}

/** Chat Completions token logprobs in the spec's shape: `bytes` (the token's UTF-8 when the upstream sent none) and `top_logprobs` always present. */
function toLogProbs(tokens: ChatTokenLogprob[]): LogProb[] {
  return tokens.map((t) => ({
    token: t.token,
    logprob: t.logprob,
    bytes: t.bytes ?? utf8Bytes(t.token),
    top_logprobs: (t.top_logprobs ?? []).map((top) => ({
      token: top.token,
      logprob: top.logprob,
      bytes: top.bytes ?? utf8Bytes(top.token),
    })),
  }));
}

const encoder = new TextEncoder();
const utf8Bytes = (text: string) => Array.from(encoder.encode(text));

function finishReason(reason: string): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    default:
      return 'stop';
  }
}

function usageOf(usage: ChatUsage | undefined): ModelUsage {
  return {
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    reasoningTokens: usage?.completion_tokens_details?.reasoning_tokens ?? 0,
    cachedInputTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
  };
}

function upstreamStreamError(error: NonNullable<ChatChunk['error']>): ResponsesError {
  const message = typeof error === 'string' ? error : error.message;
  return new ResponsesError(
    'model_error',
    'upstream_error',
    `The upstream model failed mid-stream: ${message || 'no message'}`,
  );
}

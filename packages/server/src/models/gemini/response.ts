import { ResponsesError } from '../../errors.js';
import type { FinishReason, ModelPart, ModelUsage } from '../provider.js';
import type { GenerateContentResponse, GeminiPart, GeminiUsage, ThoughtState } from './wire.js';

/**
 * Turns Gemini answer chunks into provider parts as they arrive (a whole answer is one chunk). Adjacent text
 * parts make one message; a run of thought parts (`thought: true`, Gemini's thought summaries) is a reasoning
 * item whose summary is their text, ended by the part carrying its `thoughtSignature` (its `state`, which the
 * turn runner seals into `encrypted_content`); a function call is a function call item (Gemini sends no call
 * id: the turn runner makes one). A signature Gemini puts on an answer part becomes a reasoning item of its
 * own, before a function call or a message that starts with it (`on: "next"`), or after the message whose last
 * part carried it (`on: "previous"`; a stream ends a message with an empty signed part), so that request.ts puts
 * each one back on the same part, byte for byte. Usage comes from the last `usageMetadata`.
 */
export class StreamTranslator {
  private message: string | undefined;
  private messages = 0;
  private thought: { id: string; text: string } | undefined;
  private reasoningItems = 0;
  private calls = 0;
  /** A signature for the message open now, given back after it. */
  private signatureAfterMessage: string | undefined;
  private usage: GeminiUsage = {};
  private finishReason: string | undefined;
  private finishMessage: string | undefined;

  /** The parts one chunk makes (appended to `out`). */
  push(chunk: GenerateContentResponse, out: ModelPart[]): void {
    if (chunk.usageMetadata) this.usage = chunk.usageMetadata;
    const candidate = chunk.candidates?.[0];
    if (!candidate) {
      // A blocked prompt has no candidates: the answer ends here.
      if (chunk.promptFeedback?.blockReason) this.finishReason = `PROMPT_${chunk.promptFeedback.blockReason}`;
      return;
    }
    for (const part of candidate.content?.parts ?? []) this.part(part, out);
    if (candidate.finishReason) {
      this.finishReason = candidate.finishReason;
      this.finishMessage = candidate.finishMessage ?? undefined;
    }
  }

  /** Whether the answer is whole (a finish reason, or a blocked prompt, arrived). */
  get complete(): boolean {
    return this.finishReason !== undefined;
  }

  /** The end of the answer: closes what is open and finishes; an answer without a finish reason was cut. */
  finish(out: ModelPart[]): void {
    if (!this.complete)
      throw new ResponsesError(
        'model_error',
        'upstream_stream_cut',
        'The upstream model stream ended before the model finished; the answer is incomplete.',
      );
    const reason = finishReasonOf(this.finishReason!, this.calls > 0);
    if (reason === 'error')
      throw new ResponsesError(
        'model_error',
        'upstream_error',
        `The upstream model stopped with ${this.finishReason}${this.finishMessage ? `: ${this.finishMessage.slice(0, 300)}` : ''}.`,
      );
    if (reason === 'length' || reason === 'content_filter') {
      // Cut short: what is open stays open, and the turn runner ends it as incomplete.
      out.push({ type: 'finish', reason, usage: usageOf(this.usage) });
      return;
    }
    this.endThought(out);
    this.endMessage(out);
    out.push({ type: 'finish', reason, usage: usageOf(this.usage) });
  }

  private part(part: GeminiPart, out: ModelPart[]): void {
    const text = part.text ?? undefined;
    let signature = part.thoughtSignature ?? undefined;
    if (part.thought) {
      this.endMessage(out);
      if (!this.thought) {
        this.thought = { id: `reasoning:${++this.reasoningItems}`, text: '' };
        out.push(
          { type: 'reasoning-start', id: this.thought.id },
          { type: 'reasoning-summary-start', id: this.thought.id },
        );
      }
      if (text) {
        this.thought.text += text;
        out.push({ type: 'reasoning-summary-delta', id: this.thought.id, delta: text });
      }
      if (signature) this.endThought(out, { kind: 'thought', text: this.thought.text, signature });
      return;
    }
    // A part that starts an item and carries a signature: the signature goes back on it (`next`), held by the
    // thought summary before it when there is one (Gemini reads nothing from unsigned summary text).
    const startsItem =
      part.functionCall !== undefined && part.functionCall !== null ? true : !!text && this.message === undefined;
    if (this.thought) {
      this.endThought(out, signature && startsItem ? { kind: 'signature', signature, on: 'next' } : undefined);
      if (startsItem) signature = undefined;
    }
    if (part.functionCall) {
      this.endMessage(out);
      if (signature) this.signatureItem(signature, 'next', out);
      const id = `call:${++this.calls}`;
      out.push(
        Object.assign(
          { type: 'function-call-start' as const, id, name: part.functionCall.name },
          part.functionCall.id ? { callId: part.functionCall.id } : {},
        ),
        { type: 'function-call-delta', id, delta: JSON.stringify(part.functionCall.args ?? {}) },
        { type: 'function-call-end', id },
      );
      return;
    }
    if (text === undefined) {
      // A part kind this gateway does not read: nothing to show; its signature stays with the answer.
      if (signature) {
        this.endMessage(out);
        this.signatureItem(signature, 'previous', out);
      }
      return;
    }
    if (signature) {
      if (startsItem) this.signatureItem(signature, 'next', out);
      else if (this.message === undefined) this.signatureItem(signature, 'previous', out);
      else {
        if (this.signatureAfterMessage !== undefined) this.endMessage(out);
        this.signatureAfterMessage = signature;
      }
    }
    if (!text) return;
    if (this.message === undefined) {
      this.message = `message:${++this.messages}`;
      out.push({ type: 'text-start', id: this.message });
    }
    out.push({ type: 'text-delta', id: this.message, delta: text });
  }

  /** A reasoning item that only carries a signature for the part after it or before it. */
  private signatureItem(signature: string, on: 'next' | 'previous', out: ModelPart[]): void {
    const id = `reasoning:${++this.reasoningItems}`;
    const state: ThoughtState = { kind: 'signature', signature, on };
    out.push({ type: 'reasoning-start', id }, { type: 'reasoning-end', id, state });
  }

  /** Ends the open thought summary, with the state it carries back (none for an unsigned summary). */
  private endThought(out: ModelPart[], state?: ThoughtState): void {
    const thought = this.thought;
    if (!thought) return;
    this.thought = undefined;
    out.push({ type: 'reasoning-summary-end', id: thought.id });
    out.push(state ? { type: 'reasoning-end', id: thought.id, state } : { type: 'reasoning-end', id: thought.id });
  }

  private endMessage(out: ModelPart[]): void {
    if (this.message === undefined) return;
    out.push({ type: 'text-end', id: this.message });
    this.message = undefined;
    const signature = this.signatureAfterMessage;
    this.signatureAfterMessage = undefined;
    if (signature !== undefined) this.signatureItem(signature, 'previous', out);
  }
}

/** A whole answer (`generateContent`) as parts, in the order a stream would have given them. */
export function answerParts(answer: GenerateContentResponse): ModelPart[] {
  const translator = new StreamTranslator();
  const out: ModelPart[] = [];
  translator.push(answer, out);
  // A whole answer is whole even when it names no finish reason.
  if (!translator.complete) translator.push({ candidates: [{ finishReason: 'STOP' }] }, out);
  translator.finish(out);
  return out;
}

/**
 * Finish reasons: `STOP` completes the response (with function calls, as `tool_calls`); `MAX_TOKENS` ends it
 * incomplete (`max_output_tokens`); `SAFETY`, `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`,
 * `IMAGE_SAFETY` and a blocked prompt end it incomplete (`content_filter`); anything else
 * (`MALFORMED_FUNCTION_CALL`, `UNEXPECTED_TOOL_CALL`, `LANGUAGE`, `OTHER`, reasons added later) fails it.
 */
export function finishReasonOf(reason: string, madeCalls: boolean): FinishReason {
  switch (reason) {
    case 'STOP':
    case 'FINISH_REASON_UNSPECIFIED':
      return madeCalls ? 'tool_calls' : 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
      return 'content_filter';
    default:
      return reason.startsWith('PROMPT_') ? 'content_filter' : 'error';
  }
}

/** Gemini counts thought tokens apart from `candidatesTokenCount`; the spec's output tokens include them. */
export function usageOf(usage: GeminiUsage): ModelUsage {
  const thoughts = usage.thoughtsTokenCount ?? 0;
  return {
    inputTokens: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0),
    outputTokens: (usage.candidatesTokenCount ?? 0) + thoughts,
    reasoningTokens: thoughts,
    cachedInputTokens: usage.cachedContentTokenCount ?? 0,
  };
}

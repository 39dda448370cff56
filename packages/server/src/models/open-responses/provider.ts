import { type RoutedProviderOptions, UpstreamModelProvider } from '../upstream-provider.js';
import type { ItemField } from '@openresponses/types';
import { ResponsesError } from '../../errors.js';
import { openAIHttpError } from '../chat-completions/provider.js';
import { upstreamModelOf } from '../family.js';
import { fetchModelNames } from '../model-list.js';
import { reasoningStates } from '../reasoning-state.js';
import type { ModelPart, ModelRequest } from '../provider.js';
import { UpstreamCall } from '../upstream-call.js';
import { type ResponsesRequestSettings, toResponsesRequest } from './request.js';
import { EventTranslator, responseParts } from './response.js';
import { type OpenResponsesReasoningState, reasoningStateSchema } from './wire.js';

/** What `new OpenResponsesProvider(options)` takes. */
export interface OpenResponsesProviderOptions
  extends Omit<ResponsesRequestSettings, 'upstreamModel'>,
    RoutedProviderOptions {
  /** Base URL of the upstream API, ending in `/v1` (`http://127.0.0.1:11434/v1` for Ollama). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; never echoed in errors. */
  apiKey?: string;
}

/**
 * Any server of `POST /v1/responses` (OpenAI, vLLM, Ollama, LM Studio, llama.cpp's server, OpenRouter) as a
 * model provider, with the gateway's state in front of it: the context goes whole each turn with `store:
 * false` (the upstream keeps nothing, and its `previous_response_id` is never relied on), so stored
 * responses, continuations, background turns, WebSocket sessions and compaction work on a stateless server.
 * Each upstream event is normalised and checked (wire.ts) and becomes parts (response.ts): the gateway's writer
 * numbers the events, gives items ids, and builds the final output from what streamed. The upstream's own
 * reasoning `encrypted_content` is sealed with the server's keys and sent back, byte for byte, only to the
 * upstream that made it. Failures are spec errors as for Chat Completions (the key is never shown).
 */
export class OpenResponsesProvider extends UpstreamModelProvider {
  readonly genAiProvider = 'openai';
  /** Output text logprobs come from the upstream's deltas. */
  readonly reportsLogprobs = true;
  private readonly base: string;

  constructor(private readonly options: OpenResponsesProviderOptions) {
    super(options, {
      name: 'open-responses',
      contextWindow: 128_000,
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    });
    this.base = options.baseUrl.replace(/\/+$/, '');
  }

  protected upstreamModelIds(): Promise<string[]> {
    return fetchModelNames(this.fetch, `${this.base}/models`, this.headers, this.limits, this.redactor);
  }

  async *generate(request: ModelRequest): AsyncGenerator<ModelPart> {
    const body = toResponsesRequest(
      request,
      {
        upstreamModel: upstreamModelOf(this.route, request.model),
        defaults: this.options.defaults,
        encryptedReasoning: this.options.encryptedReasoning,
      },
      await this.reasoningStates(request),
    );
    const call = new UpstreamCall('POST', this.headers, JSON.stringify(body), this.limits, this.redactor, request);
    try {
      const response = await call.send(this.fetch, `${this.base}/responses`);
      if (!response.ok) throw await openAIHttpError(response, call, this.redactor);
      if (!request.stream) {
        const parts = this.checked(async () => responseParts(await parseJson(call, call.text(response)), this.base));
        call.finished = true;
        yield* await parts;
        return;
      }
      const translator = new EventTranslator(this.base);
      const parts: ModelPart[] = [];
      let broken: ResponsesError | undefined;
      for await (const frames of call.frames(response, () => translator.complete)) {
        for (const frame of frames) {
          // Some servers end with `[DONE]` as Chat Completions does; the terminal event already ended the turn.
          if (frame.data === '[DONE]') continue;
          try {
            translator.push(await parseJson(call, frame.data), parts);
          } catch (error) {
            broken = error instanceof ResponsesError ? this.redactor.error(error) : call.failure(error);
          }
          if (broken || translator.complete) break;
        }
        if (parts.length > 0) {
          for (const part of parts) yield part;
          parts.length = 0;
        }
        if (broken) throw broken;
      }
      if (call.clientGone) return;
      translator.finish();
      call.finished = true;
    } finally {
      // Stopped early (the client went away, the turn ended, a failure): the upstream stops too.
      call.close();
    }
  }

  /** `read`'s parts, with an invalid answer's message redacted. */
  private async checked(read: () => Promise<ModelPart[]>): Promise<ModelPart[]> {
    try {
      return await read();
    } catch (error) {
      throw error instanceof ResponsesError ? this.redactor.error(error) : error;
    }
  }

  /** The reasoning this upstream made, by item, opened from the gateway's seal (other reasoning stays behind). */
  private async reasoningStates(request: ModelRequest): Promise<Map<ItemField, OpenResponsesReasoningState>> {
    const states = (await reasoningStates(request, reasoningStateSchema)) ?? new Map();
    for (const [item, state] of states) if (state.upstream !== this.base) states.delete(item);
    return states;
  }
}

/** Upstream JSON (awaited text) through the call's bounded parse; text that is not JSON is `upstream_invalid_chunk`. */
async function parseJson(call: UpstreamCall, text: string | Promise<string>): Promise<unknown> {
  try {
    return call.json(await text);
  } catch (error) {
    if (error instanceof ResponsesError) throw error;
    throw new ResponsesError(
      'model_error',
      'upstream_invalid_chunk',
      'The upstream sent an answer or event that is not valid JSON.',
      null,
      undefined,
      { cause: error },
    );
  }
}

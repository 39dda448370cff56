import { type RoutedProviderOptions, UpstreamModelProvider } from '../upstream-provider.js';
import type { ItemField } from '@openresponses/types';
import { ResponsesError } from '../../errors.js';
import { openAIHttpError } from '../chat-completions/provider.js';
import { upstreamModelOf } from '../family.js';
import { fetchModelNames } from '../model-list.js';
import { reasoningStates } from '../reasoning-state.js';
import type { ModelPart, ModelRequest } from '../provider.js';
import { type ResponsesRequestSettings, toResponsesRequest } from './request.js';
import { EventTranslator, responseParts } from './response.js';
import { type OpenResponsesReasoningState, reasoningStateSchema } from './wire.js';

/** An answer or event that is not JSON. */
const NOT_JSON = {
  code: 'upstream_invalid_chunk',
  message: 'The upstream sent an answer or event that is not valid JSON.',
};

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

  generate(request: ModelRequest): AsyncIterableIterator<ModelPart> {
    return this.exchange(request, async () => {
      const body = toResponsesRequest(
        request,
        {
          upstreamModel: upstreamModelOf(this.route, request.model),
          defaults: this.options.defaults,
          encryptedReasoning: this.options.encryptedReasoning,
        },
        await this.reasoningStates(request),
      );
      return {
        url: `${this.base}/responses`,
        body: JSON.stringify(body),
        stream: request.stream,
        httpError: (response, call) => openAIHttpError(response, call, this.redactor),
        answerParts: (text, call) => {
          try {
            return responseParts(call.json(text, NOT_JSON), this.base);
          } catch (error) {
            // An invalid answer's message quotes it.
            throw error instanceof ResponsesError ? this.redactor.error(error) : error;
          }
        },
        events: (call) => {
          const translator = new EventTranslator(this.base);
          return {
            get complete() {
              return translator.complete;
            },
            push(frame, out) {
              // Some servers end with `[DONE]` as Chat Completions does; the terminal event already ended the turn.
              if (frame.data !== '[DONE]') translator.push(call.json(frame.data, NOT_JSON), out);
            },
            finish: () => translator.finish(),
          };
        },
      };
    });
  }

  /** The reasoning this upstream made, by item, opened from the gateway's seal (other reasoning stays behind). */
  private async reasoningStates(request: ModelRequest): Promise<Map<ItemField, OpenResponsesReasoningState>> {
    const states = (await reasoningStates(request, reasoningStateSchema)) ?? new Map();
    for (const [item, state] of states) if (state.upstream !== this.base) states.delete(item);
    return states;
  }
}

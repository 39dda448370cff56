import { type RoutedProviderOptions, type UpstreamEventReader, UpstreamModelProvider } from '../upstream-provider.js';
import { upstreamCredentialsRefused } from '../upstream.js';
import { ResponsesError } from '../../errors.js';
import { type Redactor, upstreamRetryHeaders } from '../../redaction.js';
import { LOGPROBS_INCLUDE, type ModelPart, type ModelRequest } from '../provider.js';
import { toChatRequest, type ChatRequestSettings } from './request.js';
import { ChunkTranslator, completionParts } from './response.js';
import { fetchModelNames } from '../model-list.js';
import type { UpstreamCall } from '../upstream-call.js';
import type { SSEFrame } from '@openresponses/events';
import type { UpstreamResponse } from '../upstream.js';

/** A whole completion that is not JSON. */
const NOT_JSON = { code: 'upstream_invalid_response', message: 'The upstream answer is not valid JSON.' };

/** What `new ChatCompletionsProvider(options)` takes. */
export interface ChatCompletionsProviderOptions
  extends Omit<ChatRequestSettings, 'upstreamModel'>,
    RoutedProviderOptions {
  /** Base URL of the upstream API, ending in `/v1` (`http://127.0.0.1:11434/v1` for Ollama). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; never echoed in errors. */
  apiKey?: string;
}

/**
 * A Chat Completions upstream (any OpenAI-compatible server: OpenAI, Ollama, vLLM, llama.cpp's server,
 * LM Studio, OpenRouter) as a model provider. A streamed turn streams upstream too, and each chunk
 * becomes parts at once; a JSON turn asks for a whole completion. Upstream failures become spec errors:
 * refused credentials are the gateway's `server_error` (the key is never shown), 429 stays
 * `too_many_requests` with its `Retry-After`, 5xx and broken streams are `model_error`, timeouts and
 * unreachable upstreams `server_error`. The upstream request is aborted when the client goes away.
 */
export class ChatCompletionsProvider extends UpstreamModelProvider {
  readonly genAiProvider = 'openai';
  /** Output text logprobs come from the upstream's `logprobs` (an upstream that sends none makes that include a 400). */
  readonly reportsLogprobs = true;
  private readonly base: string;
  private readonly endpoint: string;

  constructor(private readonly options: ChatCompletionsProviderOptions) {
    super(options, {
      name: 'chat-completions',
      contextWindow: 128_000,
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    });
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.endpoint = `${this.base}/chat/completions`;
  }

  protected upstreamModelIds(): Promise<string[]> {
    return fetchModelNames(this.fetch, `${this.base}/models`, this.headers, this.limits, this.redactor);
  }

  generate(request: ModelRequest): AsyncIterableIterator<ModelPart> {
    return this.exchange(request, () => {
      const body = toChatRequest(request, {
        upstreamModel: this.upstreamModel(request.model),
        defaults: this.options.defaults,
        maxTokensField: this.options.maxTokensField,
        nativeAllowedTools: this.options.nativeAllowedTools,
      });
      const logprobsAt = request.include.indexOf(LOGPROBS_INCLUDE);
      const withLogprobs = logprobsAt < 0 ? undefined : `include[${logprobsAt}]`;
      return {
        url: this.endpoint,
        body: JSON.stringify(body),
        stream: body.stream === true,
        httpError: (response, call) => this.httpError(response, call),
        answerParts: (text, call) => completionParts(call.json(text, NOT_JSON), withLogprobs),
        events: (call) => new ChunkReader(call, this.redactor, withLogprobs),
      };
    });
  }

  private httpError(response: UpstreamResponse, call: UpstreamCall): Promise<ResponsesError> {
    return openAIHttpError(response, call, this.redactor);
  }
}

/**
 * Each `chat.completion.chunk` through the translator; `[DONE]` ends the answer. A class: an object literal
 * with a getter and two closures was made every streamed turn.
 */
class ChunkReader implements UpstreamEventReader {
  complete = false;
  private readonly translator: ChunkTranslator;

  constructor(
    private readonly call: UpstreamCall,
    private readonly redactor: Redactor,
    withLogprobs: string | undefined,
  ) {
    this.translator = new ChunkTranslator(withLogprobs);
  }

  push(frame: SSEFrame, out: ModelPart[]): void {
    if (frame.data === '[DONE]') {
      this.complete = true;
      return;
    }
    let chunk: unknown;
    try {
      chunk = this.call.json(frame.data);
    } catch (error) {
      if (error instanceof ResponsesError) throw error;
      throw new ResponsesError(
        'model_error',
        'upstream_invalid_chunk',
        `The upstream sent a chunk that is not valid JSON: ${this.redactor.text(frame.data, 120)}`,
      );
    }
    this.translator.push(chunk, out);
  }

  finish(out: ModelPart[]): void {
    this.translator.finish(out);
  }
}

/** An OpenAI-shaped upstream's HTTP failure (Chat Completions, Responses) as a spec error: its message and `param` checked and redacted, never its type or code. */
export async function openAIHttpError(
  response: UpstreamResponse,
  call: UpstreamCall,
  redactor: Redactor,
): Promise<ResponsesError> {
  const text = await call.errorText(response);
  let message: unknown = text;
  let param: string | null = null;
  // Not JSON (or too deep): the text is the message.
  const body = call.errorJson(text);
  const error = body && typeof body === 'object' && 'error' in body ? body.error : body;
  if (typeof error === 'string') message = error;
  else if (error && typeof error === 'object') {
    const record = error as { message?: unknown; param?: unknown };
    if (typeof record.message === 'string') message = record.message;
    param = redactor.param(record.param);
  }
  const shown = redactor.text(message) || '(no message)';
  const status = response.status;
  if (status === 401 || status === 403) return upstreamCredentialsRefused(status);
  if (status === 429)
    return new ResponsesError(
      'too_many_requests',
      'rate_limited',
      `The upstream provider is rate limiting: ${shown}`,
      null,
      429,
      { headers: upstreamRetryHeaders(response.headers) },
    );
  if (status >= 400 && status < 500 && status !== 408)
    return new ResponsesError(
      'invalid_request',
      'upstream_rejected_request',
      `The upstream provider rejected the request (HTTP ${status}): ${shown}`,
      param,
      400,
    );
  return new ResponsesError('model_error', 'upstream_error', `The upstream model failed (HTTP ${status}): ${shown}`);
}

import { type RoutedProviderOptions, UpstreamModelProvider } from '../upstream-provider.js';
import { upstreamCredentialsRefused } from '../upstream.js';
import { ResponsesError } from '../../errors.js';
import { type Redactor, upstreamRetryHeaders } from '../../redaction.js';
import { LOGPROBS_INCLUDE, type ModelPart, type ModelRequest } from '../provider.js';
import { toChatRequest, type ChatRequestSettings } from './request.js';
import { ChunkTranslator, completionParts } from './response.js';
import { fetchModelNames } from '../model-list.js';
import { UpstreamCall } from '../upstream-call.js';
import type { UpstreamResponse } from '../upstream.js';

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

  async *generate(request: ModelRequest): AsyncGenerator<ModelPart> {
    const body = toChatRequest(request, {
      upstreamModel: this.upstreamModel(request.model),
      defaults: this.options.defaults,
      maxTokensField: this.options.maxTokensField,
      nativeAllowedTools: this.options.nativeAllowedTools,
    });
    const logprobsAt = request.include.indexOf(LOGPROBS_INCLUDE);
    const withLogprobs = logprobsAt < 0 ? undefined : `include[${logprobsAt}]`;
    const call = new UpstreamCall('POST', this.headers, JSON.stringify(body), this.limits, this.redactor, request);
    try {
      const response = await call.send(this.fetch, this.endpoint);
      if (!response.ok) throw await this.httpError(response, call);
      if (!body.stream) {
        const text = await call.text(response);
        let completion: unknown;
        try {
          completion = call.json(text);
        } catch (error) {
          if (error instanceof ResponsesError) throw error;
          throw new ResponsesError(
            'model_error',
            'upstream_invalid_response',
            'The upstream answer is not valid JSON.',
            null,
            undefined,
            { cause: error },
          );
        }
        call.finished = true;
        yield* completionParts(completion, withLogprobs);
        return;
      }
      const translator = new ChunkTranslator(withLogprobs);
      const parts: ModelPart[] = [];
      let sawDone = false;
      let broken: ResponsesError | undefined;
      for await (const frames of call.frames(response, () => sawDone)) {
        for (const frame of frames) {
          if (frame.data === '[DONE]') {
            sawDone = true;
            break;
          }
          try {
            translator.push(call.json(frame.data), parts);
          } catch (error) {
            broken =
              error instanceof ResponsesError
                ? this.redactor.error(error)
                : new ResponsesError(
                    'model_error',
                    'upstream_invalid_chunk',
                    `The upstream sent a chunk that is not valid JSON: ${this.redactor.text(frame.data, 120)}`,
                  );
            break;
          }
        }
        if (parts.length > 0) {
          for (const part of parts) yield part;
          parts.length = 0;
        }
        if (broken) throw broken;
      }
      if (call.clientGone) return;
      translator.finish(parts);
      call.finished = true;
      yield* parts;
    } finally {
      // Stopped early (the client went away, the turn ended, a failure): the upstream stops too.
      call.close();
    }
  }

  private httpError(response: UpstreamResponse, call: UpstreamCall): Promise<ResponsesError> {
    return openAIHttpError(response, call, this.redactor);
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

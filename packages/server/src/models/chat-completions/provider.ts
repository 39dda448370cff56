import { createParser } from 'eventsource-parser';
import { ResponsesError } from '../../errors.js';
import { credentialHeaderValues, errorText, Redactor, upstreamRetryHeaders } from '../../redaction.js';
import { LOGPROBS_INCLUDE, type ModelPart, type ModelProvider, type ModelRequest } from '../provider.js';
import { type ModelRoute, routeServes, upstreamModelOf } from '../family.js';
import { toChatRequest, type ChatRequestSettings } from './request.js';
import { ChunkTranslator, completionParts } from './response.js';
import { Cancellation, onAbort } from '../../cancellation.js';
import {
  tracedUpstreamFetch,
  type UpstreamFetch,
  type UpstreamRequestInit,
  type UpstreamResponse,
} from '../upstream.js';

export interface ChatCompletionsProviderOptions extends Omit<ChatRequestSettings, 'upstreamModel'> {
  /** Base URL of the upstream API, ending in `/v1` (`http://127.0.0.1:11434/v1` for Ollama). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; never echoed in errors. */
  apiKey?: string;
  /** Which model names this provider serves (default `'any'`: every name, unchanged). */
  route?: ModelRoute;
  /** Name shown in logs and `GET /v1/models` (`owned_by`); default `chat-completions`. */
  name?: string;
  /** How long to wait for the upstream's answer to start, and then between two chunks (default 300 s). */
  timeoutMs?: number;
  /** Tokens of context the upstream model takes, for `truncation: "auto"` (default 128,000). */
  contextWindow?: number;
  /** Extra headers for every upstream request. */
  headers?: Record<string, string>;
  /** The fetch to use (default the global one; on Node, `nodeFetch` from `@openresponses/server/node` costs less). */
  fetch?: UpstreamFetch;
}

/**
 * A Chat Completions upstream (any OpenAI-compatible server: OpenAI, Ollama, vLLM, llama.cpp's server,
 * LM Studio, OpenRouter) as a model provider. A streamed turn streams upstream too, and each chunk
 * becomes parts at once; a JSON turn asks for a whole completion. Upstream failures become spec errors:
 * refused credentials are the gateway's `server_error` (the key is never shown), 429 stays
 * `too_many_requests` with its `Retry-After`, 5xx and broken streams are `model_error`, timeouts and
 * unreachable upstreams `server_error`. The upstream request is aborted when the client goes away.
 */
export class ChatCompletionsProvider implements ModelProvider {
  readonly name: string;
  readonly genAiProvider = 'openai';
  /** Output text logprobs come from the upstream's `logprobs` (an upstream that sends none makes that include a 400). */
  readonly reportsLogprobs = true;
  readonly contextWindow: number;
  private readonly endpoint: string;
  private readonly route: NonNullable<ChatCompletionsProviderOptions['route']>;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly fetch: UpstreamFetch;
  /** Removes the route's key (and its credential headers) from everything an upstream says. */
  private readonly redactor: Redactor;

  constructor(private readonly options: ChatCompletionsProviderOptions) {
    this.redactor = new Redactor([options.apiKey, ...credentialHeaderValues(options.headers)]);
    this.name = options.name ?? 'chat-completions';
    this.contextWindow = options.contextWindow ?? 128_000;
    const base = options.baseUrl.replace(/\/+$/, '');
    this.endpoint = `${base}/chat/completions`;
    this.route = options.route ?? 'any';
    this.timeoutMs = options.timeoutMs ?? 300_000;
    // Called as a plain function: a runtime's fetch may refuse another `this`.
    this.fetch = tracedUpstreamFetch(options.fetch ?? ((url, init) => globalThis.fetch(url, init)));
    this.headers = Object.assign(
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      options.headers,
    );
  }

  redact(text: string): string {
    return this.redactor.redact(text);
  }

  supports(model: string): boolean {
    return routeServes(this.route, model);
  }

  /** The name the upstream knows `model` by. */
  upstreamModel(model: string): string {
    return upstreamModelOf(this.route, model);
  }

  /** One name for a `{ model }` route; for the others, what the upstream's `GET /models` lists (none when it cannot be asked). */
  async listModels(): Promise<string[]> {
    const route = this.route;
    if (route !== 'any' && 'model' in route) return [route.model];
    const prefix = route === 'any' ? '' : route.prefix;
    try {
      const response = await this.fetch(this.endpoint.replace(/\/chat\/completions$/, '/models'), {
        headers: this.headers,
        signal: AbortSignal.timeout(Math.min(this.timeoutMs, 10_000)),
      });
      if (!response.ok) return [];
      const body = (await response.json()) as { data?: Array<{ id?: unknown }> };
      return (body.data ?? []).flatMap((m) => (typeof m.id === 'string' ? [`${prefix}${m.id}`] : []));
    } catch {
      return [];
    }
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
    const upstream = new Cancellation();
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    /** The timeout covers the wait for the answer to start, then each wait between chunks. */
    const arm = () => {
      if (timer) timer.refresh();
      else
        timer = setTimeout(() => {
          timedOut = true;
          upstream.cancel();
        }, this.timeoutMs);
    };
    let clientGone = false;
    const onClientGone = () => {
      clientGone = true;
      upstream.cancel();
    };
    const stopListening = request.onCancel ? request.onCancel(onClientGone) : onAbort(request.signal, onClientGone);
    let finished = false;
    const failure = (error: unknown): ResponsesError => {
      if (error instanceof ResponsesError) return error;
      if (timedOut)
        return new ResponsesError(
          'server_error',
          'upstream_timeout',
          `The upstream model did not answer within ${this.timeoutMs} ms.`,
          null,
          undefined,
          { cause: error },
        );
      return new ResponsesError(
        'server_error',
        'upstream_unavailable',
        `The upstream model could not be reached (${this.redactor.text(errorText(error), 300)}).`,
        null,
        undefined,
        { cause: error },
      );
    };
    try {
      arm();
      let response: UpstreamResponse;
      try {
        response = await this.fetch(this.endpoint, new UpstreamCall(this.headers, JSON.stringify(body), upstream));
      } catch (error) {
        throw failure(error);
      }
      if (!response.ok) throw await this.httpError(response);
      if (!body.stream) {
        let completion: unknown;
        try {
          completion = await response.json();
        } catch (error) {
          throw timedOut
            ? failure(error)
            : new ResponsesError(
                'model_error',
                'upstream_invalid_response',
                'The upstream answer is not valid JSON.',
                null,
                undefined,
                { cause: error },
              );
        }
        finished = true;
        yield* completionParts(completion, withLogprobs);
        return;
      }
      if (!response.body)
        throw new ResponsesError('model_error', 'upstream_invalid_response', 'The upstream answered without a body.');
      const translator = new ChunkTranslator(withLogprobs);
      const parts: ModelPart[] = [];
      let sawDone = false;
      let broken: ResponsesError | undefined;
      const parser = createParser({
        onEvent: (event) => {
          if (sawDone || broken) return;
          if (event.data === '[DONE]') {
            sawDone = true;
            return;
          }
          try {
            translator.push(JSON.parse(event.data), parts);
          } catch (error) {
            broken =
              error instanceof ResponsesError
                ? this.redactor.error(error)
                : new ResponsesError(
                    'model_error',
                    'upstream_invalid_chunk',
                    `The upstream sent a chunk that is not valid JSON: ${this.redactor.text(event.data, 120)}`,
                  );
          }
        },
      });
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          let next: Awaited<ReturnType<typeof reader.read>>;
          try {
            next = await reader.read();
          } catch (error) {
            // An upstream that said [DONE] and then hung or dropped the connection has still answered.
            if (sawDone) break;
            if (clientGone) return;
            if (timedOut) throw failure(error);
            throw new ResponsesError(
              'model_error',
              'upstream_stream_cut',
              'The upstream connection broke mid-stream; the answer is incomplete.',
              null,
              undefined,
              { cause: error },
            );
          }
          if (next.done) break;
          arm();
          parser.feed(decoder.decode(next.value, { stream: true }));
          if (parts.length > 0) {
            for (const part of parts) yield part;
            parts.length = 0;
          }
          if (broken) throw broken;
        }
      } finally {
        reader.releaseLock();
      }
      parser.reset({ consume: true });
      if (broken) throw broken;
      translator.finish(parts);
      finished = true;
      yield* parts;
    } finally {
      clearTimeout(timer);
      stopListening();
      // Stopped early (the client went away, the turn ended, a failure): the upstream stops too.
      if (!finished) upstream.cancel();
    }
  }

  /** An upstream's HTTP failure as a spec error: its message and `param` checked and redacted, never its type or code. */
  private async httpError(response: UpstreamResponse): Promise<ResponsesError> {
    const text = await response.text().catch(() => '');
    let message: unknown = text;
    let param: string | null = null;
    try {
      const body = JSON.parse(text) as unknown;
      const error = body && typeof body === 'object' && 'error' in body ? body.error : body;
      if (typeof error === 'string') message = error;
      else if (error && typeof error === 'object') {
        const record = error as { message?: unknown; param?: unknown };
        if (typeof record.message === 'string') message = record.message;
        param = this.redactor.param(record.param);
      }
    } catch {
      // Not JSON: the text is the message.
    }
    const shown = this.redactor.text(message) || '(no message)';
    const status = response.status;
    if (status === 401 || status === 403)
      return new ResponsesError(
        'server_error',
        'upstream_authentication_failed',
        `The upstream provider refused the gateway's credentials (HTTP ${status}); the gateway's configuration needs fixing.`,
      );
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
}

/** A POST's init: `signal` is made only when a fetch reads it (the global fetch does; `nodeFetch` follows `abort`). */
class UpstreamCall implements UpstreamRequestInit {
  readonly method = 'POST';
  constructor(
    readonly headers: Record<string, string>,
    readonly body: string,
    readonly abort: Cancellation,
  ) {}

  get signal(): AbortSignal {
    return this.abort.signal;
  }
}

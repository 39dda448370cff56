import type { ItemField } from '@openresponses/types';
import { createParser } from 'eventsource-parser';
import { ResponsesError } from '../../errors.js';
import { Cancellation, onAbort } from '../../cancellation.js';
import { credentialHeaderValues, errorText, Redactor, upstreamRetryHeaders } from '../../redaction.js';
import type { ModelPart, ModelProvider, ModelRequest } from '../provider.js';
import {
  tracedUpstreamFetch,
  type UpstreamFetch,
  type UpstreamRequestInit,
  type UpstreamResponse,
} from '../upstream.js';
import { upstreamError } from './errors.js';
import { type AnthropicRequestSettings, type ThinkingState, toAnthropicRequest } from './request.js';
import { messageParts, StreamTranslator } from './response.js';
import {
  errorSchema,
  isKnownEvent,
  messageSchema,
  modelListSchema,
  streamEventSchema,
  thinkingStateSchema,
} from './wire.js';

/** The `anthropic-version` sent by default: the current version of the Messages API (Anthropic's versioning page). */
export const ANTHROPIC_VERSION = '2023-06-01';
export const ANTHROPIC_URL = 'https://api.anthropic.com';

export interface AnthropicMessagesProviderOptions
  extends Pick<AnthropicRequestSettings, 'defaults' | 'defaultMaxTokens' | 'thinking'> {
  /** The API root (default `https://api.anthropic.com`; a trailing `/v1` is accepted). */
  baseUrl?: string;
  /** Never echoed in errors. */
  apiKey?: string;
  /**
   * How the key is sent: `x-api-key` (API keys; default) or `bearer` (`Authorization: Bearer`, for OAuth
   * access tokens and gateways in front of Anthropic that take them).
   */
  auth?: 'x-api-key' | 'bearer';
  /** The `anthropic-version` header (default `2023-06-01`, the current version). */
  anthropicVersion?: string;
  /** `anthropic-beta` features to turn on (for example `files-api-2025-04-14` for `file_id` inputs). */
  betas?: string[];
  /**
   * Which model names this provider serves: `{ model }` one name (sent as `upstreamModel`, or unchanged),
   * `{ prefix }` every name starting with it (sent without it, unless `keepPrefix`: `claude-` names go
   * as they are), `'any'` every name, unchanged (default).
   */
  route?: { model: string; upstreamModel?: string } | { prefix: string; keepPrefix?: boolean } | 'any';
  /** Name shown in logs and `GET /v1/models` (`owned_by`); default `anthropic-messages`. */
  name?: string;
  /** How long to wait for the answer to start, and then between two events (default 300 s). */
  timeoutMs?: number;
  /** Tokens of context the model takes, for `truncation: "auto"` (default 200,000). */
  contextWindow?: number;
  /** How long the upstream's model list is kept (default 10 minutes). */
  modelListTtlMs?: number;
  /** Extra headers for every upstream request. */
  headers?: Record<string, string>;
  /** The fetch to use (default the global one; on Node, `nodeFetch` from `@openresponses/server/node` costs less). */
  fetch?: UpstreamFetch;
}

/** Bytes of an error body or model list read from the upstream (more is cut: they are small). */
const MAX_SIDE_BODY_BYTES = 1 << 20;

/**
 * Anthropic's Messages API as a model provider: a turn becomes `POST /v1/messages` (streamed when the
 * client streams, each event becoming parts at once), thinking blocks become reasoning items whose
 * signature the server seals into `encrypted_content` and sends back, byte for byte, on a later turn.
 * Upstream failures become spec errors (errors.ts); the key is never shown. The upstream request is
 * aborted when the client goes away.
 */
export class AnthropicMessagesProvider implements ModelProvider {
  readonly name: string;
  readonly genAiProvider = 'anthropic';
  readonly contextWindow: number;
  private readonly base: string;
  private readonly route: NonNullable<AnthropicMessagesProviderOptions['route']>;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly fetch: UpstreamFetch;
  private models: { at: number; names: Promise<string[]> } | undefined;
  /** Removes the route's key (and its credential headers) from everything an upstream says. */
  private readonly redactor: Redactor;

  constructor(private readonly options: AnthropicMessagesProviderOptions = {}) {
    this.name = options.name ?? 'anthropic-messages';
    this.contextWindow = options.contextWindow ?? 200_000;
    this.base = (options.baseUrl ?? ANTHROPIC_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
    this.route = options.route ?? 'any';
    this.timeoutMs = options.timeoutMs ?? 300_000;
    // Called as a plain function: a runtime's fetch may refuse another `this`.
    this.fetch = tracedUpstreamFetch(options.fetch ?? ((url, init) => globalThis.fetch(url, init)));
    const key = options.apiKey;
    this.redactor = new Redactor([key, ...credentialHeaderValues(options.headers)]);
    this.headers = Object.assign(
      {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'anthropic-version': options.anthropicVersion ?? ANTHROPIC_VERSION,
      },
      key ? (options.auth === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }) : {},
      options.betas?.length ? { 'anthropic-beta': options.betas.join(',') } : {},
      options.headers,
    );
  }

  redact(text: string): string {
    return this.redactor.redact(text);
  }

  supports(model: string): boolean {
    const route = this.route;
    if (route === 'any') return true;
    return 'prefix' in route
      ? model.startsWith(route.prefix) && model.length > route.prefix.length
      : model === route.model;
  }

  /** The name the upstream knows `model` by. */
  upstreamModel(model: string): string {
    const route = this.route;
    if (route === 'any') return model;
    if ('prefix' in route) return route.keepPrefix ? model : model.slice(route.prefix.length);
    return route.upstreamModel ?? model;
  }

  /** One name for a `{ model }` route; else what the upstream's `GET /v1/models` lists (cached; none when it cannot be asked). */
  listModels(): Promise<string[]> {
    const route = this.route;
    if (route !== 'any' && 'model' in route) return Promise.resolve([route.model]);
    const now = Date.now();
    if (this.models && now - this.models.at < (this.options.modelListTtlMs ?? 600_000)) return this.models.names;
    const names = this.fetchModels().then(
      (ids) => {
        if (route === 'any') return ids;
        return route.keepPrefix ? ids.filter((id) => this.supports(id)) : ids.map((id) => `${route.prefix}${id}`);
      },
      () => {
        // Not kept: the next listing asks again.
        this.models = undefined;
        return [];
      },
    );
    this.models = { at: now, names };
    return names;
  }

  private async fetchModels(): Promise<string[]> {
    const response = await this.fetch(`${this.base}/v1/models?limit=1000`, {
      headers: this.headers,
      signal: AbortSignal.timeout(Math.min(this.timeoutMs, 10_000)),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const list = modelListSchema.parse(JSON.parse(await boundedText(response)));
    return list.data.map((model) => model.id);
  }

  async *generate(request: ModelRequest): AsyncGenerator<ModelPart> {
    const body = toAnthropicRequest(request, {
      upstreamModel: this.upstreamModel(request.model),
      defaults: this.options.defaults,
      defaultMaxTokens: this.options.defaultMaxTokens,
      thinking: this.options.thinking,
      thinkingOf: await thinkingStates(request),
    });
    const upstream = new Cancellation();
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    /** The timeout covers the wait for the answer to start, then each wait between events. */
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
        response = await this.fetch(
          `${this.base}/v1/messages`,
          new UpstreamCall(this.headers, JSON.stringify(body), upstream),
        );
      } catch (error) {
        throw failure(error);
      }
      if (!response.ok) throw await this.httpError(response);
      if (!body.stream) {
        let text: string;
        try {
          text = await response.text();
        } catch (error) {
          throw failure(error);
        }
        const message = messageSchema.safeParse(parseJson(text));
        if (!message.success)
          throw new ResponsesError(
            'model_error',
            'upstream_invalid_response',
            `The upstream answer is not a Messages message: ${message.error.issues[0]?.message ?? 'not JSON'}.`,
          );
        finished = true;
        yield* messageParts(message.data);
        return;
      }
      if (!response.body)
        throw new ResponsesError('model_error', 'upstream_invalid_response', 'The upstream answered without a body.');
      const translator = new StreamTranslator();
      const parts: ModelPart[] = [];
      let broken: ResponsesError | undefined;
      const parser = createParser({
        onEvent: (frame) => {
          if (broken || translator.complete) return;
          try {
            const parsed = streamEventSchema.safeParse(parseJson(frame.data));
            if (!parsed.success)
              throw new ResponsesError(
                'model_error',
                'upstream_invalid_chunk',
                `The upstream sent an event that is not valid (${parsed.error.issues[0]?.message}): ${this.redactor.text(frame.data, 120)}`,
              );
            if (isKnownEvent(parsed.data)) translator.push(parsed.data, parts);
          } catch (error) {
            broken = error instanceof ResponsesError ? this.redactor.error(error) : failure(error);
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
            // An upstream that sent message_stop and then dropped the connection has still answered.
            if (translator.complete) break;
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
          if (translator.complete) break;
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

  /** An upstream's HTTP failure as a spec error (errors.ts): its message checked and redacted, its retry headers clamped. */
  private async httpError(response: UpstreamResponse): Promise<ResponsesError> {
    const text = await boundedText(response).catch(() => '');
    const parsed = errorSchema.safeParse(parseJson(text));
    const message = this.redactor.text(parsed.success ? parsed.data.error.message : text) || '(no message)';
    const type = parsed.success ? parsed.data.error.type : undefined;
    return upstreamError(type, message, response.status, false, upstreamRetryHeaders(response.headers));
  }
}

/** The thinking state sealed in each reasoning item of the context that has one (items without are left out upstream). */
async function thinkingStates(request: ModelRequest): Promise<Map<ItemField, ThinkingState> | undefined> {
  let states: Map<ItemField, ThinkingState> | undefined;
  for (const item of request.items) {
    const sealed = (item as { encrypted_content?: unknown }).encrypted_content;
    if (item.type !== 'reasoning' || typeof sealed !== 'string' || !request.openReasoning) continue;
    // Another family's reasoning (or none) has no thinking state: it stays behind.
    const state = thinkingStateSchema.safeParse(await request.openReasoning(sealed));
    if (state.success) (states ??= new Map()).set(item, state.data);
  }
  return states;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The body as text, cut at MAX_SIDE_BODY_BYTES (an error body or model list is small; an upstream may not be). */
async function boundedText(response: UpstreamResponse): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return (await response.text()).slice(0, MAX_SIDE_BODY_BYTES);
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      bytes += next.value.byteLength;
      text += decoder.decode(next.value, { stream: true });
      if (bytes > MAX_SIDE_BODY_BYTES) break;
    }
  } finally {
    reader.releaseLock();
  }
  return text;
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

import { type RoutedProviderOptions, type UpstreamEventReader, UpstreamModelProvider } from '../upstream-provider.js';
import type { SSEFrame } from '@openresponses/events';
import { ResponsesError } from '../../errors.js';
import { upstreamRetryHeaders } from '../../redaction.js';
import type { ModelRoute } from '../family.js';
import { fetchModelNames } from '../model-list.js';
import type { UpstreamCall } from '../upstream-call.js';
import type { ModelPart, ModelRequest } from '../provider.js';
import { reasoningStates } from '../reasoning-state.js';
import type { UpstreamResponse } from '../upstream.js';
import { upstreamError } from './errors.js';
import { type AnthropicRequestSettings, toAnthropicRequest } from './request.js';
import { messageParts, StreamTranslator } from './response.js';
import { errorSchema, isKnownEvent, messageSchema, streamEventSchema, thinkingStateSchema } from './wire.js';

/** The `anthropic-version` sent by default: the current version of the Messages API (Anthropic's versioning page). */
export const ANTHROPIC_VERSION = '2023-06-01';
export const ANTHROPIC_URL = 'https://api.anthropic.com';

/** What `new AnthropicMessagesProvider(options)` takes. */
export interface AnthropicMessagesProviderOptions
  extends Pick<AnthropicRequestSettings, 'defaults' | 'defaultMaxTokens' | 'thinking'>,
    RoutedProviderOptions {
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
  route?: ModelRoute;
}

/**
 * Anthropic's Messages API as a model provider: a turn becomes `POST /v1/messages` (streamed when the
 * client streams, each event becoming parts at once), thinking blocks become reasoning items whose
 * signature the server seals into `encrypted_content` and sends back, byte for byte, on a later turn.
 * Upstream failures become spec errors (errors.ts); the key is never shown. The upstream request is
 * aborted when the client goes away.
 */
export class AnthropicMessagesProvider extends UpstreamModelProvider {
  readonly genAiProvider = 'anthropic';
  private readonly base: string;

  constructor(private readonly options: AnthropicMessagesProviderOptions = {}) {
    const key = options.apiKey;
    super(options, {
      name: 'anthropic-messages',
      contextWindow: 200_000,
      headers: Object.assign<Record<string, string>, Record<string, string>, Record<string, string>>(
        { 'anthropic-version': options.anthropicVersion ?? ANTHROPIC_VERSION },
        key ? (options.auth === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }) : {},
        options.betas?.length ? { 'anthropic-beta': options.betas.join(',') } : {},
      ),
    });
    this.base = (options.baseUrl ?? ANTHROPIC_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
  }

  protected upstreamModelIds(): Promise<string[]> {
    return fetchModelNames(this.fetch, `${this.base}/v1/models?limit=1000`, this.headers, this.limits, this.redactor);
  }

  generate(request: ModelRequest): AsyncIterableIterator<ModelPart> {
    return this.exchange(request, async () => {
      const body = toAnthropicRequest(request, {
        upstreamModel: this.upstreamModel(request.model),
        defaults: this.options.defaults,
        defaultMaxTokens: this.options.defaultMaxTokens,
        thinking: this.options.thinking,
        thinkingOf: await reasoningStates(request, thinkingStateSchema),
      });
      return {
        url: `${this.base}/v1/messages`,
        body: JSON.stringify(body),
        stream: body.stream === true,
        httpError: (response, call) => this.httpError(response, call),
        answerParts: (text, call) => {
          const message = messageSchema.safeParse(parseJson(call, text));
          if (!message.success)
            throw new ResponsesError(
              'model_error',
              'upstream_invalid_response',
              `The upstream answer is not a Messages message: ${message.error.issues[0]?.message ?? 'not JSON'}.`,
            );
          return messageParts(message.data);
        },
        events: (call) => this.eventReader(call),
      };
    });
  }

  /** Each Messages stream event, checked, through the translator; unknown event types are skipped. */
  private eventReader(call: UpstreamCall): UpstreamEventReader {
    const translator = new StreamTranslator();
    const redactor = this.redactor;
    return {
      get complete() {
        return translator.complete;
      },
      keepAlive: isPing,
      push(frame, out) {
        const parsed = streamEventSchema.safeParse(parseJson(call, frame.data));
        if (!parsed.success)
          throw new ResponsesError(
            'model_error',
            'upstream_invalid_chunk',
            `The upstream sent an event that is not valid (${parsed.error.issues[0]?.message}): ${redactor.text(frame.data, 120)}`,
          );
        if (isKnownEvent(parsed.data)) translator.push(parsed.data, out);
      },
      finish: (out) => translator.finish(out),
    };
  }

  /** An upstream's HTTP failure as a spec error (errors.ts): its message checked and redacted, its retry headers clamped. */
  private async httpError(response: UpstreamResponse, call: UpstreamCall): Promise<ResponsesError> {
    const text = await call.errorText(response);
    const parsed = errorSchema.safeParse(call.errorJson(text));
    const message = this.redactor.text(parsed.success ? parsed.data.error.message : text) || '(no message)';
    const type = parsed.success ? parsed.data.error.type : undefined;
    return upstreamError(type, message, response.status, false, upstreamRetryHeaders(response.headers));
  }
}

/** Anthropic's keep-alive event: it does not restart the idle timer (an upstream that only pings times out). */
const isPing = (frame: SSEFrame) => frame.event === 'ping';

/** Upstream JSON through the call's bounded parse; text that is not JSON is `undefined` (the schema then says so). */
function parseJson(call: UpstreamCall, text: string): unknown {
  try {
    return call.json(text);
  } catch (error) {
    if (error instanceof ResponsesError) throw error;
    return undefined;
  }
}

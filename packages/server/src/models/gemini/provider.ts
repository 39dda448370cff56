import { type RoutedProviderOptions, UpstreamModelProvider } from '../upstream-provider.js';
import { ResponsesError } from '../../errors.js';
import { upstreamRetryHeaders } from '../../redaction.js';
import type { ModelRoute } from '../family.js';
import { fetchModelNames, type ModelPage } from '../model-list.js';
import type { ModelPart, ModelRequest } from '../provider.js';
import { reasoningStates } from '../reasoning-state.js';
import type { UpstreamCall } from '../upstream-call.js';
import type { UpstreamResponse } from '../upstream.js';
import { upstreamError } from './errors.js';
import { type GeminiRequestSettings, toGeminiRequest } from './request.js';
import { answerParts, StreamTranslator } from './response.js';
import {
  errorSchema,
  type GenerateContentResponse,
  generateContentResponseSchema,
  modelListSchema,
  thoughtStateSchema,
} from './wire.js';

/** The Gemini API's root. */
export const GEMINI_URL = 'https://generativelanguage.googleapis.com';
/** The API version in every path (the one with thought signatures, `responseJsonSchema` and `thinkingLevel`). */
export const GEMINI_API_VERSION = 'v1beta';

/** What `new GeminiProvider(options)` takes. */
export interface GeminiProviderOptions
  extends Pick<GeminiRequestSettings, 'defaults' | 'thinking'>,
    RoutedProviderOptions {
  /** The API root (default `https://generativelanguage.googleapis.com`; a trailing `/v1beta` is accepted). */
  baseUrl?: string;
  /** Sent as `x-goog-api-key`; never echoed in errors. */
  apiKey?: string;
  /**
   * Which model names this provider serves: `{ model }` one name (sent as `upstreamModel`, or unchanged),
   * `{ prefix }` every name starting with it (sent without it, unless `keepPrefix`: `gemini-` names go as
   * they are), `'any'` every name, unchanged (default).
   */
  route?: ModelRoute;
}

/**
 * The Gemini API as a model provider: a turn becomes `POST /v1beta/models/{model}:generateContent`, or
 * `:streamGenerateContent?alt=sse` when the client streams (each chunk becoming parts at once). Thought parts
 * become reasoning items, and every `thoughtSignature` is sealed into `encrypted_content` and sent back, byte
 * for byte, on a later turn. Upstream failures become spec errors (errors.ts); the key is never shown. The
 * upstream request is aborted when the client goes away.
 */
export class GeminiProvider extends UpstreamModelProvider {
  readonly genAiProvider = 'gcp.gemini';
  private readonly base: string;

  constructor(private readonly options: GeminiProviderOptions = {}) {
    super(options, {
      name: 'gemini',
      contextWindow: 1_048_576,
      headers: options.apiKey ? { 'x-goog-api-key': options.apiKey } : {},
    });
    this.base = `${(options.baseUrl ?? GEMINI_URL).replace(/\/+$/, '').replace(/\/v1beta$/, '')}/${GEMINI_API_VERSION}`;
  }

  /** The models that can generate content, from every page of `GET /v1beta/models` (bounded: see `fetchModelNames`). */
  protected upstreamModelIds(): Promise<string[]> {
    return fetchModelNames(
      this.fetch,
      `${this.base}/models?pageSize=1000`,
      this.headers,
      this.limits,
      this.redactor,
      (body) => this.modelPage(body),
      (model) => (model as { name: string }).name.replace(/^models\//, ''),
    );
  }

  generate(request: ModelRequest): AsyncIterableIterator<ModelPart> {
    return this.exchange(request, async () => {
      const model = this.upstreamModel(request.model);
      const body = toGeminiRequest(request, {
        upstreamModel: model,
        defaults: this.options.defaults,
        thinking: this.options.thinking,
        thoughtsOf: await reasoningStates(request, thoughtStateSchema),
      });
      return {
        url: `${this.base}/models/${encodeURIComponent(model)}:${request.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        body: JSON.stringify(body),
        stream: request.stream,
        httpError: (response, call) => this.httpError(response, call),
        answerParts: (text, call) => answerParts(this.chunk(parseJson(call, text), 'answer')),
        events: (call) => {
          const translator = new StreamTranslator();
          return {
            get complete() {
              return translator.complete;
            },
            push: (frame, out) => translator.push(this.chunk(parseJson(call, frame.data), 'chunk', frame.data), out),
            finish: (out) => translator.finish(out),
          };
        },
      };
    });
  }

  /** A parsed answer or chunk, checked: an error chunk is its spec error, anything else not an answer an `upstream_invalid_*`. */
  private chunk(value: unknown, what: 'answer' | 'chunk', text?: string): GenerateContentResponse {
    if (value && typeof value === 'object' && 'error' in value) {
      const failure = errorSchema.safeParse(value);
      const message = this.redactor.text(failure.success ? failure.data.error.message : '') || '(no message)';
      throw upstreamError(failure.success ? failure.data.error : undefined, message, undefined, true);
    }
    const parsed = generateContentResponseSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    const why = value === undefined ? 'not JSON' : (parsed.error.issues[0]?.message ?? 'not valid');
    throw new ResponsesError(
      'model_error',
      what === 'answer' ? 'upstream_invalid_response' : 'upstream_invalid_chunk',
      what === 'answer'
        ? `The upstream answer is not a GenerateContentResponse: ${why}.`
        : `The upstream sent a chunk that is not valid (${why}): ${this.redactor.text(text ?? '', 120)}`,
    );
  }

  /** A `GET /v1beta/models` page: the models that can generate content, and the next page's URL. */
  private modelPage(body: unknown): ModelPage {
    const page = modelListSchema.safeParse(body);
    if (!page.success) throw new Error('The upstream model list is not a Gemini model list.');
    const models = (page.data.models ?? []).filter(
      (model) => !model.supportedGenerationMethods || model.supportedGenerationMethods.includes('generateContent'),
    );
    const token = page.data.nextPageToken;
    return token
      ? { models, next: `${this.base}/models?pageSize=1000&pageToken=${encodeURIComponent(token)}` }
      : { models };
  }

  /** An upstream's HTTP failure as a spec error (errors.ts): its message checked and redacted, its retry headers clamped. */
  private async httpError(response: UpstreamResponse, call: UpstreamCall): Promise<ResponsesError> {
    const text = await call.errorText(response);
    const parsed = errorSchema.safeParse(call.errorJson(text));
    const message = this.redactor.text(parsed.success ? parsed.data.error.message : text) || '(no message)';
    return upstreamError(
      parsed.success ? parsed.data.error : undefined,
      message,
      response.status,
      false,
      upstreamRetryHeaders(response.headers),
    );
  }
}

/** Upstream JSON through the call's bounded parse; text that is not JSON is `undefined` (the schema then says so). */
function parseJson(call: UpstreamCall, text: string): unknown {
  try {
    return call.json(text);
  } catch (error) {
    if (error instanceof ResponsesError) throw error;
    return undefined;
  }
}

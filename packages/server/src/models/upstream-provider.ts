import type { UpstreamLimits } from '../limits.js';
import type { Redactor } from '../redaction.js';
import { type ModelRoute, routeModelNames, routeServes, upstreamModelOf } from './family.js';
import { CachedModelList } from './model-list.js';
import type { ModelPart, ModelProvider, ModelRequest } from './provider.js';
import { type UpstreamFetch, type UpstreamProviderOptions, upstreamConnection } from './upstream.js';

/** The options every upstream family's provider takes besides its own: its key and the names it serves. */
export interface RoutedProviderOptions extends UpstreamProviderOptions {
  /** Never echoed in errors (each family says how it is sent). */
  apiKey?: string;
  /** Which model names this provider serves (default `'any'`: every name, unchanged). */
  route?: ModelRoute;
}

/** What a family gives its provider's shared part: defaults, and how its key travels. */
export interface UpstreamFamilyDefaults {
  /** The provider's name when the options give none (the family's route type). */
  name: string;
  /** The model's context window when the options give none. */
  contextWindow: number;
  /** The family's own headers (the key, a version): after the JSON content type, before `options.headers`. */
  headers: Record<string, string>;
}

/**
 * The part every provider that calls an HTTP upstream shares, whatever its family: the connection (bounds,
 * fetch, the redactor of its secrets, built once through `upstreamConnection`, which refuses an unsendable
 * key at start), the names its route serves and sends upstream, and the upstream's model list, cached. A
 * family adds its request, its answer's translation and its error map (`generate`), and how its upstream
 * lists models (`upstreamModelIds`).
 */
export abstract class UpstreamModelProvider implements ModelProvider {
  readonly name: string;
  abstract readonly genAiProvider: string;
  readonly contextWindow: number;
  /** The names this provider serves, and how they are sent upstream. */
  protected readonly route: ModelRoute;
  /** Sent with every upstream request: the JSON content type, the family's headers, then the operator's. */
  protected readonly headers: Record<string, string>;
  /** The bounds of every upstream call (`timeoutMs` applied as the idle bound). */
  protected readonly limits: UpstreamLimits;
  /** The fetch every upstream call goes through (`UpstreamCall.send`). */
  protected readonly fetch: UpstreamFetch;
  /** Removes the route's key (and its credential headers) from everything an upstream says. */
  protected readonly redactor: Redactor;
  private readonly models: CachedModelList;

  protected constructor(options: RoutedProviderOptions, family: UpstreamFamilyDefaults) {
    ({ limits: this.limits, fetch: this.fetch, redactor: this.redactor } = upstreamConnection(options, options.apiKey));
    this.name = options.name ?? family.name;
    this.contextWindow = options.contextWindow ?? family.contextWindow;
    this.route = options.route ?? 'any';
    this.headers = Object.assign(
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      family.headers,
      options.headers,
    );
    this.models = new CachedModelList(() => this.upstreamModelIds(), options.modelListTtlMs);
  }

  /** The ids the upstream's own model list names (asked only for `'any'` and `{ prefix }` routes; see `listModels`). */
  protected abstract upstreamModelIds(): Promise<string[]>;

  abstract generate(request: ModelRequest): AsyncGenerator<ModelPart>;

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

  /**
   * One name for a `{ model }` route; else what the upstream lists (cached, bounded: see `CachedModelList`
   * and `fetchModelNames`; none when it cannot be asked), named as the route serves them.
   */
  async listModels(): Promise<string[]> {
    return routeModelNames(this.route, () => this.models.get());
  }
}

import type { UpstreamLimits } from '../limits.js';
import { printable, type Redactor, redactSecretShapes } from '../redaction.js';
import type { ModelProvider } from './provider.js';
import { UpstreamCall } from './upstream-call.js';
import type { UpstreamFetch } from './upstream.js';

/** How long an upstream's model list is kept (10 minutes); a failed listing is kept for at most a minute. */
export const DEFAULT_MODEL_LIST_TTL_MS = 600_000;
const FAILED_LIST_TTL_MS = 60_000;
/** Longest model name listed; longer ones are left out. */
const MAX_MODEL_NAME_CHARS = 256;
/** A listing is one short call: its idle timer and deadline are at most these, whatever the limits say. */
const LISTING_IDLE_MS = 10_000;
const LISTING_DEADLINE_MS = 30_000;

/**
 * An upstream's model names for `GET /v1/models`, asked at most once per `ttlMs` for every client (a failed
 * listing, as none, for at most a minute), read through the bounded reader: the body at most
 * `maxUpstreamBodyBytes`, at most `maxUpstreamModels` names. Every provider family lists through it.
 */
export class CachedModelList {
  private cached: { until: number; names: Promise<string[]> } | undefined;

  constructor(
    private readonly load: () => Promise<string[]>,
    private readonly ttlMs = DEFAULT_MODEL_LIST_TTL_MS,
  ) {}

  get(): Promise<string[]> {
    const now = Date.now();
    if (this.cached && now < this.cached.until) return this.cached.names;
    const entry = { until: now + this.ttlMs, names: Promise.resolve<string[]>([]) };
    entry.names = this.load().catch(() => {
      // Not kept for long: the upstream may answer again soon. Kept at all: every GET must not call a failing upstream.
      entry.until = Math.min(entry.until, Date.now() + FAILED_LIST_TTL_MS);
      return [];
    });
    this.cached = entry;
    return entry.names;
  }
}

/** Pages of one listing followed at most (a listing that pages past it is cut there). */
export const MAX_MODEL_PAGES = 20;

/** One page of a model listing: the entries (each `{ id }` or what `nameOf` reads), and the next page's URL. */
export interface ModelPage {
  /** The page's entries, as the upstream sent them. */
  models: unknown[];
  /** The URL of the next page, when there is one. */
  next?: string;
}

/** OpenAI's and Anthropic's shape, `{ data: [{ id }, …] }`: one page (the gateway asks for the most per page). */
const dataPage = (body: unknown): ModelPage => {
  const data = body && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) throw new Error('The upstream model list has no data array.');
  return { models: data };
};
const idOf = (model: unknown) => (model && typeof model === 'object' ? (model as { id?: unknown }).id : undefined);

/**
 * `GET url` of an upstream that lists models, page after page (at most `MAX_MODEL_PAGES`), bounded as above:
 * `readPage` reads one page (default `{ data: [{ id }, …] }`, OpenAI's and Anthropic's shape) and says where
 * the next one is; `nameOf` reads a name from an entry (default its `id`). Throws when the upstream fails or an
 * answer is not such a page.
 */
export async function fetchModelNames(
  fetch: UpstreamFetch,
  url: string,
  headers: Record<string, string>,
  limits: UpstreamLimits,
  redactor: Redactor,
  readPage: (body: unknown) => ModelPage = dataPage,
  nameOf: (model: unknown) => unknown = idOf,
): Promise<string[]> {
  const names: string[] = [];
  let next: string | undefined = url;
  for (let page = 0; next !== undefined && page < MAX_MODEL_PAGES && names.length < limits.maxUpstreamModels; page++) {
    const { models, next: after } = readPage(await listingPage(fetch, next, headers, limits, redactor));
    next = after;
    for (const model of models) {
      if (names.length >= limits.maxUpstreamModels) break;
      const name = nameOf(model);
      if (typeof name === 'string' && name.length > 0 && name.length <= MAX_MODEL_NAME_CHARS) names.push(name);
    }
  }
  return names;
}

/** One page of a listing, read through the bounded reader as one short call. */
async function listingPage(
  fetch: UpstreamFetch,
  url: string,
  headers: Record<string, string>,
  limits: UpstreamLimits,
  redactor: Redactor,
): Promise<unknown> {
  const call = new UpstreamCall(
    'GET',
    headers,
    undefined,
    Object.assign({}, limits, {
      upstreamIdleMs: Math.min(limits.upstreamIdleMs, LISTING_IDLE_MS),
      upstreamDeadlineMs: Math.min(limits.upstreamDeadlineMs, LISTING_DEADLINE_MS),
    }),
    redactor,
  );
  try {
    const response = await call.send(fetch, url);
    if (!response.ok) throw new Error(`The upstream answered HTTP ${response.status} to a model listing.`);
    const body = call.json(await call.text(response));
    call.finished = true;
    return body;
  } finally {
    call.close();
  }
}

/**
 * A provider's model names as they may leave the process (`GET /v1/models`, metric labels): names are the
 * upstream's words, so one its redactor would change (built from its key, a token's shape) or one with a
 * control or bidirectional formatting character is left out, whatever the family. A failed listing is none;
 * a list the provider gives at once is answered at once.
 */
export function listedModelNames(provider: ModelProvider): string[] | Promise<string[]> {
  let listed: readonly string[] | Promise<readonly string[]> | undefined;
  try {
    listed = provider.listModels?.();
  } catch {
    return [];
  }
  // A list given at once (the embedded and scenario models) is answered at once: metric labels count it for
  // the turn that asked (telemetry/model-labels.ts).
  // Anything else is awaited as `await` would (a promise of another realm, a thenable).
  if (listed === undefined || Array.isArray(listed)) return outgoingNames(provider, listed ?? []);
  return Promise.resolve(listed).then(
    (names) => outgoingNames(provider, names ?? []),
    () => [],
  );
}

/** The names of `names` that may leave the process (`listedModelNames`). */
function outgoingNames(provider: ModelProvider, names: readonly string[]): string[] {
  if (!Array.isArray(names)) return [];
  const redact = (text: string) => (provider.redact ? provider.redact(text) : redactSecretShapes(text));
  return names.filter(
    (name) => typeof name === 'string' && redact(name) === name && printable(name, MAX_MODEL_NAME_CHARS) === name,
  );
}

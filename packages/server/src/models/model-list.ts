import type { UpstreamLimits } from '../limits.js';
import type { Redactor } from '../redaction.js';
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
 * `maxUpstreamBodyBytes`, at most `maxUpstreamModels` names. Both provider families list through it.
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

/**
 * `GET url` of an upstream that lists models as `{ data: [{ id }, …] }` (OpenAI's and Anthropic's shape),
 * bounded as above; throws when the upstream fails or the answer is not such a list.
 */
export async function fetchModelNames(
  fetch: UpstreamFetch,
  url: string,
  headers: Record<string, string>,
  limits: UpstreamLimits,
  redactor: Redactor,
): Promise<string[]> {
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
    const data = body && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
    if (!Array.isArray(data)) throw new Error('The upstream model list has no data array.');
    const names: string[] = [];
    for (const model of data) {
      if (names.length >= limits.maxUpstreamModels) break;
      const id = model && typeof model === 'object' ? (model as { id?: unknown }).id : undefined;
      if (typeof id === 'string' && id.length > 0 && id.length <= MAX_MODEL_NAME_CHARS) names.push(id);
    }
    return names;
  } finally {
    call.close();
  }
}

import { ResponsesError } from '../errors.js';
import type { ModelPart, ModelProvider, ModelRequest, ReasoningState } from './provider.js';

/** How a route with several upstreams moves between them (every field has a default and a bound). */
export interface FallbackSettings {
  /**
   * The longest `Retry-After` (or `retry-after-ms`) the gateway waits out to ask the same upstream once more
   * (default 1,000 ms, at most 10,000); a longer one moves to the next upstream at once and keeps the one
   * that asked away for that long (at most `cooldownMs`).
   */
  retryAfterMaxMs?: number;
  /** Failures in a row that open an upstream's circuit: it is skipped for `cooldownMs` (default 3, 1 to 100). */
  breakerFailures?: number;
  /** How long an open circuit skips its upstream before one turn tries it again (default 30,000 ms, at most 600,000). */
  cooldownMs?: number;
}

export const FALLBACK_BOUNDS = {
  retryAfterMaxMs: { default: 1_000, max: 10_000 },
  breakerFailures: { default: 3, max: 100 },
  cooldownMs: { default: 30_000, max: 600_000 },
} as const;

/** One upstream of a fallback route: its provider and the name the answer header shows. */
export interface FallbackUpstream {
  /** The name shown in the `openresponses-upstream` header (the route file's `name`, or the family and host). */
  readonly name: string;
  readonly provider: ModelProvider;
}

/** Whether a failure before the first part moves to the next upstream: 429, any 5xx (connection, timeout, overload). */
export function isFallbackFailure(error: unknown): error is ResponsesError {
  return error instanceof ResponsesError && (error.status === 429 || error.status >= 500);
}

/** An upstream's circuit: failures in a row, and until when it is skipped. */
interface Circuit {
  failures: number;
  openUntil: number;
}

/** The key a fallback route wraps an upstream's reasoning state in, so that it goes back only to that upstream. */
const VIA = 'fallback_upstream';

/**
 * A route served by several upstreams of any families, tried in order. A connection failure, a 429, a 5xx or
 * a timeout *before the first part* moves to the next upstream (a short `Retry-After` is waited out once on
 * the same upstream first); after the first part the turn belongs to that upstream, and a failure ends the
 * stream with the spec error as on any route. An upstream failing `breakerFailures` times in a row is skipped
 * for `cooldownMs` (when every one is skipped, the one whose wait ends first is tried). The upstream that
 * answered is set on `request.upstream` (the `openresponses-upstream` header). Reasoning state is wrapped
 * with the name of the upstream that made it and is opened only for that upstream: one upstream's sealed
 * reasoning is never sent to another (the item goes without it, as the spec allows).
 */
export class FallbackProvider implements ModelProvider {
  readonly name: string;
  readonly contextWindow: number;
  readonly reportsLogprobs: boolean;
  private readonly circuits: Circuit[];
  private readonly retryAfterMaxMs: number;
  private readonly breakerFailures: number;
  private readonly cooldownMs: number;

  constructor(
    name: string,
    private readonly upstreams: readonly FallbackUpstream[],
    private readonly serves: (model: string) => boolean,
    settings: FallbackSettings = {},
    private readonly now: () => number = Date.now,
  ) {
    if (upstreams.length === 0) throw new Error('a fallback route needs at least one upstream');
    this.name = name;
    this.contextWindow = Math.min(...upstreams.map((u) => u.provider.contextWindow));
    this.reportsLogprobs = upstreams.every((u) => u.provider.reportsLogprobs === true);
    this.circuits = upstreams.map(() => ({ failures: 0, openUntil: 0 }));
    this.retryAfterMaxMs = bounded(settings.retryAfterMaxMs, FALLBACK_BOUNDS.retryAfterMaxMs);
    this.breakerFailures = Math.max(1, bounded(settings.breakerFailures, FALLBACK_BOUNDS.breakerFailures));
    this.cooldownMs = bounded(settings.cooldownMs, FALLBACK_BOUNDS.cooldownMs);
  }

  supports(model: string): boolean {
    return this.serves(model);
  }

  /** What every upstream lists, once each. */
  async listModels(): Promise<string[]> {
    const lists = await Promise.all(this.upstreams.map(async (u) => (await u.provider.listModels?.()) ?? []));
    return [...new Set(lists.flat())];
  }

  redact(text: string): string {
    let out = text;
    for (const { provider } of this.upstreams) if (provider.redact) out = provider.redact(out);
    return out;
  }

  /** The order of this turn's attempts: closed circuits in route order, or the one whose wait ends first. */
  private order(): number[] {
    const now = this.now();
    const closed = this.upstreams.map((_, index) => index).filter((index) => this.circuits[index]!.openUntil <= now);
    if (closed.length > 0) return closed;
    let soonest = 0;
    this.circuits.forEach((circuit, index) => {
      if (circuit.openUntil < this.circuits[soonest]!.openUntil) soonest = index;
    });
    return [soonest];
  }

  private failed(index: number, holdMs = 0): void {
    const circuit = this.circuits[index]!;
    circuit.failures++;
    const hold = circuit.failures >= this.breakerFailures ? this.cooldownMs : Math.min(holdMs, this.cooldownMs);
    if (hold > 0) circuit.openUntil = Math.max(circuit.openUntil, this.now() + hold);
  }

  private succeeded(index: number): void {
    const circuit = this.circuits[index]!;
    circuit.failures = 0;
    circuit.openUntil = 0;
  }

  async *generate(request: ModelRequest): AsyncGenerator<ModelPart> {
    const order = this.order();
    let lastError: unknown;
    for (let at = 0; at < order.length; at++) {
      const index = order[at]!;
      const upstream = this.upstreams[index]!;
      const isLast = at === order.length - 1;
      let waited = false;
      for (;;) {
        const started = await this.start(upstream, request);
        if (started.ok) {
          this.succeeded(index);
          request.upstream = upstream.name;
          yield* started.parts;
          return;
        }
        lastError = started.error;
        const retryAfterMs = retryAfterOf(started.error);
        const clientGone = request.signal?.aborted === true;
        if (clientGone) throw started.error;
        if (!waited && retryAfterMs !== undefined && retryAfterMs <= this.retryAfterMaxMs) {
          // The upstream asked for a short pause: cheaper to wait than to change upstream.
          waited = true;
          await delay(retryAfterMs, request);
          continue;
        }
        this.failed(index, retryAfterMs);
        if (isLast) throw started.error;
        break;
      }
    }
    throw lastError;
  }

  /** Starts `upstream` on the turn and waits for its first part: the point after which it owns the turn. */
  private async start(
    upstream: FallbackUpstream,
    request: ModelRequest,
  ): Promise<{ ok: true; parts: AsyncIterable<ModelPart> } | { ok: false; error: ResponsesError }> {
    const opened = request.openReasoning;
    if (opened) {
      // The view is this turn's own: its reasoning opens only for the upstream that made it.
      request.openReasoning = async (sealed) => {
        const state = await opened.call(request, sealed);
        const via = state?.[VIA];
        return typeof via === 'string' && via === upstream.name ? (state!.state as ReasoningState) : undefined;
      };
    }
    const iterator = upstream.provider.generate(request)[Symbol.asyncIterator]();
    let first: IteratorResult<ModelPart>;
    try {
      first = await iterator.next();
    } catch (error) {
      if (isFallbackFailure(error)) return { ok: false, error };
      throw error;
    }
    if (!first.done && first.value.type === 'error') {
      await iterator.return?.();
      return { ok: false, error: new ResponsesError('model_error', first.value.code, first.value.message) };
    }
    return { ok: true, parts: this.tagged(upstream.name, first, iterator) };
  }

  /** The upstream's parts from its first, each reasoning state wrapped with the upstream's name. */
  private async *tagged(
    name: string,
    first: IteratorResult<ModelPart>,
    iterator: AsyncIterator<ModelPart>,
  ): AsyncGenerator<ModelPart> {
    try {
      for (let next = first; !next.done; next = await iterator.next()) {
        const part = next.value;
        yield part.type === 'reasoning-end' && part.state
          ? { ...part, state: { [VIA]: name, state: part.state } }
          : part;
      }
    } finally {
      await iterator.return?.();
    }
  }
}

function bounded(value: number | undefined, bound: { default: number; max: number }): number {
  if (value === undefined || !Number.isFinite(value)) return bound.default;
  return Math.min(Math.max(0, Math.floor(value)), bound.max);
}

/** The pause a failure asked for, in ms (`retry-after-ms`, else `retry-after` seconds; the provider clamped both). */
function retryAfterOf(error: ResponsesError): number | undefined {
  const ms = Number(error.headers['retry-after-ms']);
  if (error.headers['retry-after-ms'] !== undefined && Number.isFinite(ms)) return ms;
  const seconds = Number(error.headers['retry-after']);
  return error.headers['retry-after'] !== undefined && Number.isFinite(seconds) ? seconds * 1000 : undefined;
}

/** Waits `ms`, or less when the client goes away. */
function delay(ms: number, request: ModelRequest): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    const stop = request.onCancel?.(done);
    function done() {
      clearTimeout(timer);
      stop?.();
      resolve();
    }
  });
}

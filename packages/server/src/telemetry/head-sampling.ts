// Head sampling: a trace's sampling decided once at its server span, before the SDK (see `HeadSampler`).
import { createContextKey, type TracerProvider } from '@opentelemetry/api';

/**
 * A trace's sampling decided once, at its server span, before the SDK is asked: the standard samplers of
 * `OTEL_TRACES_SAMPLER` need only the parent's sampled flag, its trace id and a ratio. A trace it drops
 * costs the check alone: no SDK span, no ids, no clock, no attribute object (the SDK's sampler runs after
 * making all of them). The caller's trace context still reaches the upstream unchanged.
 */
export interface HeadSampler {
  /** Whether a parent's sampled flag decides (`parentbased_*`); else `sampled` decides every trace. */
  readonly parentBased: boolean;
  /** Whether a trace is recorded: `traceId` the parent's, or undefined for a new trace. */
  sampled(traceId: string | undefined): boolean;
}

const samplers = new WeakMap<object, HeadSampler>();
/** Counts `sampleAtHead` calls: tracing.ts reads a provider's sampler again when it changes. */
export let headSamplers = 0;

/** The head sampler `provider` was registered with, if any. */
export const headSamplerOf = (provider: unknown): HeadSampler | undefined =>
  typeof provider === 'object' && provider !== null ? samplers.get(provider) : undefined;

/**
 * Decides the sampling of this server's traces with `sampler` while `provider` is the registered one (the
 * Node entry's SDK registers its provider so). The provider's own sampler must record every span whose
 * context carries `HEAD_SAMPLED` (the head decided it); children of a recording span are only ever made
 * under it.
 */
export function sampleAtHead(provider: TracerProvider, sampler: HeadSampler): void {
  samplers.set(provider, sampler);
  headSamplers++;
}

/** Marks the contexts of a trace the head sampler decided to record (read by the SDK's sampler, then inherited). */
export const HEAD_SAMPLED = createContextKey('openresponses.head_sampled');

// Per-tenant usage counters: label sets made once per tenant (tenants are the operator's, so bounded), each
// tenant's counters bound to them once per instruments.
import type { Attributes } from '@opentelemetry/api';
import type { BoundCounter } from './aggregation.js';
import { ATTR_GEN_AI_TOKEN_TYPE } from './attributes.js';
import { type Instruments, instruments } from './metrics.js';

/** The tenant's label: tenant names are the operator's (bounded by the tenants file and the key list). */
export const TENANT_NAME = 'openresponses.tenant';

/** Counts a finished turn's usage for its tenant (input, cached, output and reasoning tokens). */
export function countTenantUsage(
  tenant: string,
  usage: { inputTokens: number; cachedTokens: number; outputTokens: number; reasoningTokens: number },
): void {
  const meters = instruments();
  if (!meters) return;
  const series = tenantSeriesOf(meters, tenant);
  series.turns.add(1);
  if (usage.inputTokens > 0) series.input.add(usage.inputTokens);
  if (usage.cachedTokens > 0) series.cached.add(usage.cachedTokens);
  if (usage.outputTokens > 0) series.output.add(usage.outputTokens);
  if (usage.reasoningTokens > 0) series.reasoning.add(usage.reasoningTokens);
}

/** A tenant's counters of one set of instruments: its turns, and its tokens by token type. */
export interface TenantSeries {
  readonly turns: BoundCounter;
  readonly input: BoundCounter;
  readonly cached: BoundCounter;
  readonly output: BoundCounter;
  readonly reasoning: BoundCounter;
}

/** A tenant's counters, bound at its first turn (a turn like the last one finds them without a Map lookup). */
const tenantSeriesOf = (meters: Instruments, tenant: string): TenantSeries =>
  meters.bound.tenants.get(tenant, meters, undefined, undefined, tenantSeriesMade);
/** Given `meters` as a part (the same for every lookup in its own sets): made once, not a closure per lookup. */
const tenantSeriesMade = (tenant: string, meters: Instruments): TenantSeries => {
  const labels = tenantLabelsOf(tenant);
  const tokens = meters.tenantTokens;
  return {
    turns: meters.tenantTurns.bind(labels.turns),
    input: tokens.bind(labels.input),
    cached: tokens.bind(labels.cached),
    output: tokens.bind(labels.output),
    reasoning: tokens.bind(labels.reasoning),
  };
};

/** A tenant's label sets: its turns', and its tokens' by token type. */
interface TenantLabels {
  readonly turns: Attributes;
  readonly input: Attributes;
  readonly cached: Attributes;
  readonly output: Attributes;
  readonly reasoning: Attributes;
}

/** The tenants whose label sets are kept (tenants are the operator's: the tenants file and the key list). */
const MAX_TENANT_LABELS = 2000;
const tenantLabels = new Map<string, TenantLabels>();

/** A tenant's label sets, made together at its first turn, so a turn finds all of them with one lookup. */
function tenantLabelsOf(tenant: string): TenantLabels {
  let labels = tenantLabels.get(tenant);
  if (labels === undefined) {
    const typed = (type: string) => Object.freeze({ [TENANT_NAME]: tenant, [ATTR_GEN_AI_TOKEN_TYPE]: type });
    labels = {
      turns: Object.freeze({ [TENANT_NAME]: tenant }),
      input: typed('input'),
      cached: typed('cached'),
      output: typed('output'),
      reasoning: typed('reasoning'),
    };
    if (tenantLabels.size < MAX_TENANT_LABELS) tenantLabels.set(tenant, labels);
  }
  return labels;
}

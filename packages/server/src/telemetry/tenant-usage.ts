// Per-tenant usage counters: label sets made once per tenant (tenants are the operator's, so bounded).
import type { Attributes } from '@opentelemetry/api';
import { ATTR_GEN_AI_TOKEN_TYPE } from './attributes.js';
import { instruments } from './metrics.js';

/** The tenant's label: tenant names are the operator's (bounded by the tenants file and the key list). */
export const TENANT_NAME = 'openresponses.tenant';

/** Counts a finished turn's usage for its tenant (input, cached, output and reasoning tokens). */
export function countTenantUsage(
  tenant: string,
  usage: { inputTokens: number; cachedTokens: number; outputTokens: number; reasoningTokens: number },
): void {
  const meters = instruments();
  if (!meters) return;
  const labels = tenantLabelsOf(tenant);
  meters.tenantTurns.add(1, labels.turns);
  const tokens = meters.tenantTokens;
  if (usage.inputTokens > 0) tokens.add(usage.inputTokens, labels.input);
  if (usage.cachedTokens > 0) tokens.add(usage.cachedTokens, labels.cached);
  if (usage.outputTokens > 0) tokens.add(usage.outputTokens, labels.output);
  if (usage.reasoningTokens > 0) tokens.add(usage.reasoningTokens, labels.reasoning);
}

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

// A provider's request built by hand (what the turn's prepare stage makes), for tests that call a provider or
// a family's request conversion directly.
import type { ItemField } from '@openresponses/types';
import type { ModelRequest } from '../src/index.js';

/** A request for model `m` with one user message ('Hi'), every setting unset, not streamed; `over` replaces fields. */
export const modelRequest = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'm',
  instructions: null,
  items: [
    { type: 'message', id: 'msg_1', status: 'completed', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
  ] as ItemField[],
  tools: [],
  hostedTools: [],
  toolPolicy: { mode: 'auto', allowed: [] },
  parallelToolCalls: true,
  maxToolCalls: null,
  reasoning: null,
  maxOutputTokens: null,
  temperature: null,
  topP: null,
  presencePenalty: null,
  frequencyPenalty: null,
  topLogprobs: null,
  text: null,
  metadata: {},
  safetyIdentifier: null,
  promptCacheKey: null,
  serviceTier: null,
  include: [],
  stream: false,
  ...over,
});

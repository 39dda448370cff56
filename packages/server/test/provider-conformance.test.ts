// The provider conformance kit (@openresponses/server/testing) run for every provider family, each
// behind the real server on 127.0.0.1 in front of a scripted upstream speaking its wire format.
import { describe, expect, test } from 'vitest';
import type { ModelProvider } from '../src/index.js';
import {
  anthropicMessagesWire,
  chatCompletionsWire,
  describeProviderConformance,
  geminiWire,
  openResponsesWire,
  responsesWire,
} from '../src/testing/index.js';
import { API_KEY, startTestServer } from './harness.js';

const serve = async (providers: ModelProvider[]) => {
  const server = await startTestServer({ providers });
  return { url: server.url, apiKey: API_KEY, close: () => server.close() };
};

describeProviderConformance(chatCompletionsWire, { serve }, { describe, test, expect });
describeProviderConformance(anthropicMessagesWire, { serve }, { describe, test, expect });
describeProviderConformance(geminiWire, { serve }, { describe, test, expect });
describeProviderConformance(openResponsesWire, { serve }, { describe, test, expect });
// A stateless, quirky server (no sequence numbers, an empty final output, bare errors, OpenAI's reasoning_text names).
describeProviderConformance(
  responsesWire(
    { noSequenceNumbers: true, emptyFinalOutput: true, bareErrors: true, reasoningTextEvents: true },
    'open-responses (quirky)',
  ),
  { serve },
  { describe, test, expect },
);

import { isVendorType, type AnyStreamingEvent } from '@openresponses/events';

/**
 * Streams for the official `openai` SDK, whose `responses.stream()` helper throws on any event type it does not
 * know: the spec's raw-reasoning events go out under OpenAI's names (`response.reasoning_text.delta`/`.done`,
 * same fields) and vendor events are left out, sequence numbers renumbered so that they stay contiguous.
 * Off by default: a conformant stream uses the spec's names.
 */
export function openAIEventNames(): (event: AnyStreamingEvent) => AnyStreamingEvent | undefined {
  let next = 0;
  return (event) => {
    if (isVendorType(event.type)) return undefined;
    const type = OPENAI_NAMES[event.type] ?? event.type;
    const sequence_number = next++;
    return type === event.type && event.sequence_number === sequence_number
      ? event
      : ({ ...event, type, sequence_number } as AnyStreamingEvent);
  };
}

const OPENAI_NAMES: Readonly<Record<string, string>> = {
  'response.reasoning.delta': 'response.reasoning_text.delta',
  'response.reasoning.done': 'response.reasoning_text.done',
};

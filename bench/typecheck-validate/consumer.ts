// A consumer of the standalone validators: type guards and results narrowed to the types package's types.
import type { ResponseResource, StreamingEvent } from '@openresponses/types';
import { isStreamingEvent, validateResponseResource } from '@openresponses/types/validate';
import * as forward from '@openresponses/types/validate/forward';

export function describe(body: unknown, event: unknown): string {
  const result = validateResponseResource(body);
  if (!result.success) return result.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n');
  const response: ResponseResource = result.data;
  const first = response.output[0];
  const text =
    first?.type === 'message'
      ? first.content.map((part) => (part.type === 'output_text' ? part.text : '')).join('')
      : '';
  if (isStreamingEvent(event)) {
    const known: StreamingEvent = event;
    return known.type === 'response.output_text.delta' ? `${text}${known.delta}` : `${text} (${known.type})`;
  }
  return forward.isStreamingEvent(event) ? `${text} (unknown ${event.type})` : text;
}

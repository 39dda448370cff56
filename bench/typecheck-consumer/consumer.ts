// A consumer that infers types from our Zod schemas: what the type-check benchmark compiles.
import type { z } from 'zod';
import type { ResponseResourceSchema, StreamingEventSchema } from '@openresponses/zod';

export type Response = z.infer<typeof ResponseResourceSchema>;
export type Event = z.infer<typeof StreamingEventSchema>;

export function describe(response: Response, event: Event): string {
  const first = response.output[0];
  const text =
    first?.type === 'message'
      ? first.content.map((part) => (part.type === 'output_text' ? part.text : '')).join('')
      : '';
  return event.type === 'response.output_text.delta' ? `${text}${event.delta}` : `${text} (${event.type})`;
}

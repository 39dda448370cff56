import type { ResponseResource } from '@openresponses/types';

/** A response as the client answers it: the spec's `ResponseResource` and its text. */
export type ClientResponse = ResponseResource & {
  /**
   * The text of every `output_text` part of the output's assistant messages, joined in order (`''` when
   * there is none), as openai-node's `response.output_text`. Not enumerable: `JSON.stringify` and
   * validation see the response exactly as the server sent it.
   */
  readonly output_text: string;
};

/** The joined `output_text` parts of a response's assistant messages. */
export function outputText(response: Pick<ResponseResource, 'output'>): string {
  let text = '';
  for (const item of response.output ?? [])
    if (item.type === 'message' && 'content' in item && Array.isArray(item.content))
      for (const part of item.content as Array<{ type?: unknown; text?: unknown }>)
        if (part.type === 'output_text' && typeof part.text === 'string') text += part.text;
  return text;
}

/** Adds the `output_text` getter to a response (a copy when the response cannot take it). */
export function withOutputText(response: ResponseResource): ClientResponse {
  const target = Object.isExtensible(response) ? response : { ...response };
  if (!Object.hasOwn(target, 'output_text'))
    Object.defineProperty(target, 'output_text', {
      get: () => outputText(target),
      enumerable: false,
      configurable: true,
    });
  return target as ClientResponse;
}

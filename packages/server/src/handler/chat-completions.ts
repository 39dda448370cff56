import type { AnyStreamingEvent } from '@openresponses/events';
import type { ResponseResource } from '@openresponses/types';
import type { ResponsesError } from '../errors.js';
import { type Backpressure, json, type ServiceResponse } from '../exchange.js';
import { toResponsesBody } from '../models/chat-completions/legacy-request.js';
import { chatChunkEncoder, toChatCompletion } from '../models/chat-completions/legacy-response.js';
import { eventStream } from './event-stream.js';

/**
 * The legacy `POST /v1/chat/completions` endpoint (seed 004), served from the Responses pipeline: the
 * request becomes a Responses turn and the turn's response or events become a `chat.completion` or
 * `chat.completion.chunk`s (both conversions live with the dialect, in models/chat-completions/). Off by
 * default. The stream is written by the same writer as `/v1/responses`, with its backpressure and
 * stalled-reader rules.
 */

/** Starts a Responses turn for a mapped body (`watched`: the client streams); resolves once the model has begun. */
export type BeginTurn = (
  body: Record<string, unknown>,
  watched: boolean,
) => Promise<
  (
    onEvent?: (event: AnyStreamingEvent) => void,
    backpressure?: Backpressure,
  ) => Promise<{ response: ResponseResource; error?: ResponsesError }>
>;

/** Answers one `POST /v1/chat/completions`: JSON, or `chat.completion.chunk`s ending with `[DONE]`. */
export async function serveChatCompletions(
  raw: unknown,
  begin: BeginTurn,
  headers?: Record<string, string>,
): Promise<ServiceResponse> {
  const { body, request } = toResponsesBody(raw);
  const streaming = request.stream === true;
  if (streaming) body.stream = true;
  const run = await begin(body, streaming);
  if (!streaming) {
    const result = await run();
    if (result.error) throw result.error;
    return json(200, toChatCompletion(result.response), headers);
  }
  return eventStream(run, chatChunkEncoder(request.model, request.stream_options?.include_usage === true), headers);
}

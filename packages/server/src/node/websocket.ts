import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { asResponsesError, invalidRequest, ResponsesError } from '../errors.js';
import type { ResponsesService } from '../handler/service.js';
import type { StoredResponse } from '../stores/store.js';

export interface WebSocketOptions {
  /** How long a connection may stay open (the spec's 60 minutes by default). */
  connectionLimitMs?: number;
  /** Responses kept in connection-local memory for continuation (default 32, most recent). */
  localCacheSize?: number;
}

/**
 * One WebSocket connection on `/v1/responses`: `response.create` turns processed one at a time,
 * connection-local state so `store: false` responses can be continued on the same socket, eviction of
 * the referenced response when a continuation fails, and the connection time limit.
 */
export function serveResponsesSocket(
  socket: WebSocket,
  request: IncomingMessage,
  service: ResponsesService,
  options: WebSocketOptions = {},
): void {
  const local = new Map<string, StoredResponse>();
  const cacheSize = options.localCacheSize ?? 32;
  let queue = Promise.resolve();
  let closed = false;
  const send = (payload: unknown) => {
    if (!closed && socket.readyState === socket.OPEN) socket.send(JSON.stringify(payload));
  };
  const sendError = (error: ResponsesError) =>
    send({
      type: 'error',
      status: error.status,
      error: { type: error.type, code: error.code, message: error.message, param: error.param },
    });

  let version: ReturnType<ResponsesService['versionOf']>;
  try {
    version = service.versionOf(header(request, 'openresponses-version'));
  } catch (error) {
    sendError(asResponsesError(error));
    socket.close(1008, 'unsupported version');
    return;
  }

  const limit = setTimeout(
    () => {
      // Wait for the in-flight turn, then tell the client why the connection ends.
      queue = queue.then(() => {
        sendError(
          new ResponsesError(
            'invalid_request',
            'websocket_connection_limit_reached',
            `WebSocket connections are limited to ${Math.round((options.connectionLimitMs ?? 3_600_000) / 60_000)} minutes; open a new connection.`,
            null,
            400,
          ),
        );
        socket.close(1000, 'connection limit reached');
      });
    },
    options.connectionLimitMs ?? 60 * 60 * 1000,
  );
  limit.unref?.();

  const lookupResponse = async (id: string) => local.get(id) ?? (await service.store.get(id));

  const handle = async (data: string) => {
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      throw invalidRequest('invalid_json', 'The message is not valid JSON.');
    }
    const type = (message as { type?: unknown } | null)?.type;
    if (type !== 'response.create')
      throw invalidRequest(
        'unsupported_event_type',
        `Expected a "response.create" message, got ${JSON.stringify(type ?? null)}.`,
        'type',
      );
    const previous = (message as { previous_response_id?: unknown }).previous_response_id;
    try {
      const result = await service.turn(message, {
        version,
        lookupResponse,
        onEvent: send,
        schema: 'WebSocketResponseCreateEventSchema',
      });
      if (result.error && typeof previous === 'string') local.delete(previous);
      local.set(result.response.id, { response: result.response, input: result.input });
      while (local.size > cacheSize) local.delete(local.keys().next().value!);
    } catch (error) {
      // A failed continuation evicts what it continued from (the spec's rule for 4xx and 5xx failures).
      if (typeof previous === 'string') local.delete(previous);
      throw error;
    }
  };

  socket.on('message', (data, isBinary) => {
    const text = isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString();
    // One in-flight response per connection: turns run strictly in arrival order.
    queue = queue.then(() =>
      handle(text).catch((error: unknown) => {
        if (!(error instanceof ResponsesError)) console.error(error);
        sendError(asResponsesError(error));
      }),
    );
  });
  socket.on('close', () => {
    closed = true;
    clearTimeout(limit);
  });
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { asResponsesError, invalidRequest, ResponsesError } from '../errors.js';
import { parseJson } from '../handler/http.js';
import type { ResponsesService } from '../handler/service.js';
import { ConnectionCache } from '../stores/connection-cache.js';

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
  // ws reports bad frames (unmasked, reserved bits, unknown opcodes, invalid UTF-8, oversize) as errors and
  // closes with the matching code (1002, 1007, 1009); without a listener the error would end the process.
  socket.on('error', (error) => console.error(`openresponses-server: WebSocket closed: ${error.message}`));
  const local = new ConnectionCache(service.store, { maxEntries: options.localCacheSize ?? 32 });
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
  // The upgrade was authorized with this header: every turn on the connection runs for its tenant.
  const owner = service.ownerOf(header(request, 'authorization'));
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
            `WebSocket connections are limited to ${formatDuration(options.connectionLimitMs ?? 3_600_000)}; open a new connection.`,
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

  const handle = async (data: string) => {
    const message = parseJson(data, service.limits, 'The message');
    const type = (message as { type?: unknown } | null)?.type;
    if (type !== 'response.create')
      throw invalidRequest(
        'unsupported_event_type',
        `Expected a "response.create" message, got ${JSON.stringify(type ?? null)}.`,
        'type',
      );
    const previous = (message as { previous_response_id?: unknown }).previous_response_id;
    const tenant = (await owner) ?? 'open';
    try {
      const result = await service.turn(message, {
        version,
        owner: tenant,
        store: local,
        onEvent: send,
        schema: 'WebSocketResponseCreateEventSchema',
      });
      if (result.error && typeof previous === 'string') await local.forget(previous, tenant);
      await local.remember({ response: result.response, input: result.input }, tenant);
    } catch (error) {
      // A failed continuation evicts what it continued from (the spec's rule for 4xx and 5xx failures).
      if (typeof previous === 'string') await local.forget(previous, tenant);
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

/** A limit as people say it: "60 minutes", "1 minute 30 seconds", "45 seconds", "500 milliseconds". */
export function formatDuration(ms: number): string {
  const unit = (count: number, name: string) => `${count} ${name}${count === 1 ? '' : 's'}`;
  if (ms < 1000) return unit(Math.round(ms), 'millisecond');
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return unit(seconds, 'second');
  const minutes = Math.floor(seconds / 60);
  return seconds % 60 === 0 ? unit(minutes, 'minute') : `${unit(minutes, 'minute')} ${unit(seconds % 60, 'second')}`;
}

import type { IncomingMessage } from 'node:http';
import type { ResponsesService } from '../service/service.js';
import type { ServerLimits } from '../limits.js';
import type { SessionOptions } from '../websocket/session.js';

/**
 * What `serveResponsesSocket` uses of a `ws` socket, spelled out so that these declarations need no
 * `@types/ws` (not a dependency): a `WebSocket` from `ws` is one.
 */
export interface NodeWebSocket {
  /** `OPEN` while the socket can send. */
  readonly readyState: number;
  /** The `readyState` of an open socket. */
  readonly OPEN: number;
  /** Bytes queued and not yet sent. */
  readonly bufferedAmount: number;
  /** Sends a text message. */
  send(text: string): void;
  /** Closes with a status code and reason. */
  close(code?: number, reason?: string): void;
  /** Destroys the connection at once. */
  terminate(): void;
  /** A protocol error (the socket closes). */
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** A message: text unless `isBinary`. */
  on(event: 'message', listener: (data: { toString(): string }, isBinary: boolean) => void): unknown;
  /** The socket closed. */
  on(event: 'close', listener: () => void): unknown;
}

/** Drives a Responses WebSocket session (`service.openSession`) from a `ws` socket. */
export function serveResponsesSocket(
  socket: NodeWebSocket,
  request: IncomingMessage,
  service: ResponsesService,
  options: SessionOptions = {},
): void {
  // ws reports bad frames (unmasked, reserved bits, unknown opcodes, invalid UTF-8, oversize) as errors and
  // closes with the matching code (1002, 1007, 1009); without a listener the error would end the process.
  socket.on('error', (error) => console.error(`openresponses-server: WebSocket closed: ${error.message}`));
  const session = service.openSession(
    {
      send: (text) => {
        if (socket.readyState === socket.OPEN) socket.send(text);
      },
      close: (code, reason) => socket.close(code, reason),
      // A dropped reader's turn is cancelled at once: the socket's `close` comes later.
      backpressure: () => waitForReader(socket, service.limits, () => session.closed()),
    },
    { header: (name) => firstHeader(request.headers[name]) },
    options,
  );
  socket.on('message', (data, isBinary) =>
    session.receive(isBinary ? Buffer.from(data as Uint8Array).toString('utf8') : data.toString()),
  );
  socket.on('close', () => session.closed());
}

/**
 * Undefined while the client reads; otherwise a promise that settles once its unread bytes are back under
 * the high-water mark, or once it has read nothing for `stalledWriteMs` (the socket is then terminated:
 * what it left unread goes with it, and `onStalled` runs before the promise settles). ws has no drain
 * event, so the buffer is polled.
 */
function waitForReader(
  socket: NodeWebSocket,
  { writeHighWaterBytes, stalledWriteMs }: Pick<ServerLimits, 'writeHighWaterBytes' | 'stalledWriteMs'>,
  onStalled: () => void,
): Promise<void> | undefined {
  const caughtUp = () => socket.readyState !== socket.OPEN || socket.bufferedAmount <= writeHighWaterBytes;
  if (caughtUp()) return undefined;
  return new Promise<void>((resolve) => {
    let unread = socket.bufferedAmount;
    let since = Date.now();
    const poll = setInterval(() => {
      if (caughtUp()) {
        clearInterval(poll);
        resolve();
      } else if (socket.bufferedAmount < unread) {
        unread = socket.bufferedAmount;
        since = Date.now();
      } else if (Date.now() - since >= stalledWriteMs) {
        clearInterval(poll);
        socket.terminate();
        onStalled();
        resolve();
      }
    }, 25);
  });
}

/** The first value of a `node:http` header, or null. */
export function firstHeader(value: string | string[] | undefined): string | null {
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

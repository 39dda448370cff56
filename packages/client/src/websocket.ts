import type { ClientResponse } from './output-text.js';
import { type AnyStreamingEvent, isTerminalEventType } from '@openresponses/events';
import type {
  CompactResource,
  CompactResponseMethodPublicBody,
  CreateResponseBody,
  ItemParam,
} from '@openresponses/types';
import { APIConnectionError, OpenResponsesError } from './errors.js';
import { sanitizeReplayedHistory } from './history.js';
import type { TransportOptions } from './http.js';
import { normalizeEvents, ResponseStream, type EventPolicy } from './stream.js';
import { outputToInput } from './output-to-input.js';

/** The part of the WebSocket API the session uses: the browser's, Node 22's, or `ws`'s. */
export interface WebSocketLike {
  /** `WebSocket.OPEN` (1) once connected. */
  readonly readyState: number;
  /** Sends one text message. */
  send(data: string): void;
  /** Closes the connection. */
  close(code?: number, reason?: string): void;
  /** Listens for messages, the close, the open and errors. */
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  /** Listens for the close, with its code and reason. */
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
  /** Listens for the open and for errors. */
  addEventListener(type: 'open' | 'error', listener: (event: unknown) => void): void;
}
/** `ws` takes headers as `new WebSocket(url, { headers })`; the browser's takes none. */
export type WebSocketConstructor = new (url: string, options?: { headers?: Record<string, string> }) => WebSocketLike;

/** What `client.responses.connect()` takes. */
export interface ConnectOptions {
  /** A WebSocket implementation; required on Node 20 (pass `WebSocket` from `ws`, which can also send the API key header). */
  WebSocket?: WebSocketConstructor;
  /** When a chain cannot continue (store: false on a new socket), seed the new chain from a compacted window made with this model instead of resending the full history. */
  compactModel?: string;
}

/** A WebSocket turn's body: a create body without the HTTP-only fields. */
export type SessionTurnBody = Omit<CreateResponseBody, 'stream' | 'stream_options' | 'background'>;

/** A WebSocket session on `/responses`, from `client.responses.connect()`. */
export interface ResponsesSession {
  /** One turn: sends `response.create` and streams its events; turns run one after another. */
  create(body: SessionTurnBody): ResponseStream;
  /**
   * A conversation turn with the spec's recovery rules: continues from the last response with
   * `previous_response_id`; after a closed socket or `websocket_connection_limit_reached` it reconnects and
   * continues if the response was stored, otherwise starts a new chain with the full context (or a
   * compacted window); `previous_response_not_found` also falls back to a new chain.
   */
  send(
    input: string | ItemParam[],
    body?: Omit<SessionTurnBody, 'input' | 'previous_response_id'>,
  ): Promise<ClientResponse>;
  /** Everything said so far (inputs and outputs), as the next chain would need it. */
  readonly history: readonly ItemParam[];
  /** The last response's id, which the next `send` continues from. */
  readonly lastResponseId: string | undefined;
  /** Closes the session's socket. */
  close(): void;
}

interface Dependencies {
  transport: TransportOptions;
  policy: EventPolicy;
  compact: (body: CompactResponseMethodPublicBody) => Promise<CompactResource>;
}

class Channel<T> {
  private items: T[] = [];
  private waiting: Array<(value: IteratorResult<T>) => void> = [];
  private ended: { error?: unknown } | undefined;
  push(item: T) {
    const waiter = this.waiting.shift();
    if (waiter) waiter({ value: item, done: false });
    else this.items.push(item);
  }
  end(error?: unknown) {
    if (this.ended) return;
    this.ended = { error };
    for (const waiter of this.waiting.splice(0)) waiter({ value: undefined, done: true });
  }
  async *drain(): AsyncGenerator<T> {
    for (;;) {
      if (this.items.length) {
        yield this.items.shift()!;
        continue;
      }
      if (this.ended) {
        if (this.ended.error) throw this.ended.error;
        return;
      }
      const next = await new Promise<IteratorResult<T>>((resolve) => this.waiting.push(resolve));
      if (next.done) continue;
      yield next.value;
    }
  }
}

class Connection {
  private current: Channel<AnyStreamingEvent> | undefined;
  private queue: Promise<void> = Promise.resolve();
  closedBy: OpenResponsesError | undefined;

  constructor(private readonly socket: WebSocketLike) {
    socket.addEventListener('message', (event) => this.onMessage(String(event.data)));
    socket.addEventListener('close', (event) => {
      this.closedBy ??= new APIConnectionError(
        `The WebSocket closed (${event.code}${event.reason ? `: ${event.reason}` : ''}).`,
        { code: 'websocket_closed' },
      );
      this.current?.end(this.closedBy);
    });
  }

  get open(): boolean {
    return this.socket.readyState === 1 && !this.closedBy;
  }

  private onMessage(text: string) {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    // An envelope (with `status`) is a WebSocket failure; an `error` event without it is part of the stream.
    if (message.type === 'error' && typeof message.status === 'number') {
      const error = (message.error ?? {}) as { type?: string; code?: string; message?: string; param?: string | null };
      const failure = new OpenResponsesError(
        error.message ?? 'WebSocket error',
        message.status,
        error.type ?? 'invalid_request',
        error.code ?? null,
        error.param ?? null,
      );
      if (failure.code === 'websocket_connection_limit_reached') this.closedBy = failure;
      if (this.current) this.current.end(failure);
      return;
    }
    this.current?.push(message as AnyStreamingEvent);
    if (isTerminalEventType(message.type)) this.current?.end();
  }

  turn(body: SessionTurnBody): AsyncIterable<AnyStreamingEvent> {
    const channel = new Channel<AnyStreamingEvent>();
    const previous = this.queue;
    let finished!: () => void;
    this.queue = new Promise<void>((resolve) => (finished = resolve));
    const self = this;
    return (async function* () {
      await previous;
      try {
        if (!self.open)
          throw self.closedBy ?? new APIConnectionError('The WebSocket is not open.', { code: 'websocket_closed' });
        self.current = channel;
        self.socket.send(JSON.stringify({ ...body, type: 'response.create' }));
        yield* channel.drain();
      } finally {
        self.current = undefined;
        finished();
      }
    })();
  }

  close() {
    this.socket.close(1000, 'client closed');
  }
}

async function open(deps: Dependencies, options: ConnectOptions): Promise<Connection> {
  const Impl = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!Impl) throw new Error('No WebSocket implementation: pass { WebSocket } (for example from the ws package).');
  const url = `${deps.transport.baseURL.replace(/^http/, 'ws').replace(/\/+$/, '')}/responses`;
  const headers: Record<string, string> = { ...deps.transport.headers };
  if (deps.transport.apiKey) headers.authorization = `Bearer ${deps.transport.apiKey}`;
  const socket = options.WebSocket ? new Impl(url, { headers }) : new Impl(url);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', (event) =>
      reject(
        new APIConnectionError(
          `WebSocket connection to ${url} failed: ${(event as { message?: string }).message ?? 'error'}`,
          { code: 'websocket_failed', cause: event },
        ),
      ),
    );
  });
  return new Connection(socket);
}

export async function connectSession(deps: Dependencies, options: ConnectOptions): Promise<ResponsesSession> {
  let connection = await open(deps, options);
  let history: ItemParam[] = [];
  let last: { id: string; stored: boolean; connection: Connection } | undefined;

  const create = (body: SessionTurnBody, on: Connection = connection): ResponseStream => {
    const controller = new AbortController();
    return new ResponseStream(
      normalizeEvents(on.turn(body), deps.policy),
      controller,
      deps.policy.registry?.createAccumulator(),
    );
  };

  const asItems = (input: string | ItemParam[]): ItemParam[] =>
    typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input;

  const newChainInput = async (items: ItemParam[]): Promise<ItemParam[]> => {
    if (!options.compactModel || history.length === 0) return sanitizeReplayedHistory([...history, ...items]);
    const compacted = await deps.compact({ model: options.compactModel, input: history });
    return [...outputToInput(compacted), ...items];
  };

  const session: ResponsesSession = {
    create: (body) => create(body),
    async send(input, body = {}) {
      const items = asItems(input);
      for (let attempt = 0; ; attempt++) {
        if (!connection.open) connection = await open(deps, options);
        const canContinue = last && (last.stored || last.connection === connection);
        const turnBody: SessionTurnBody = canContinue
          ? { ...body, input: items, previous_response_id: last!.id }
          : { ...body, input: await newChainInput(items), previous_response_id: null };
        try {
          const response = await create(turnBody).finalResponse();
          history = [...history, ...items, ...outputToInput(response)];
          last = { id: response.id, stored: body.store !== false, connection };
          return response;
        } catch (error) {
          const recoverable =
            error instanceof OpenResponsesError &&
            (error.code === 'websocket_connection_limit_reached' ||
              error.code === 'websocket_closed' ||
              error.code === 'previous_response_not_found');
          if (!recoverable || attempt >= 2) throw error;
          if ((error as OpenResponsesError).code === 'previous_response_not_found') last = undefined;
        }
      }
    },
    get history() {
      return history;
    },
    get lastResponseId() {
      return last?.id;
    },
    close: () => connection.close(),
  };
  return session;
}

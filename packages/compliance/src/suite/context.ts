import {
  checkStream,
  decodeSSE,
  isTerminalEventType,
  SSEDecodeError,
  type AnyStreamingEvent,
} from '@openresponses/events';
import type { ResponseResource } from '@openresponses/types';
import { ResponseResourceSchema, validate } from '@openresponses/zod';
import { CheckFailed, Skip, type Exchange, type SuiteConfig } from '../types.js';

export interface HttpResult {
  status: number;
  body: unknown;
  contentType: string;
}

/** Rule ids of the strict decoder's errors (the checker's id where it has one). */
const SSE_RULES: Partial<Record<string, string>> = {
  event_type_mismatch: 'sse-event-name',
  missing_event_field: 'sse-event-name',
  missing_done: 'missing-done',
};

/** The media type of a content-type header, without parameters, lower case. */
const mediaType = (header: string | null) => (header ?? '').split(';')[0]!.trim().toLowerCase();

/** What tests use to talk to the server under test: raw HTTP, checked streams, WebSocket turns. */
export class TestContext {
  /** What the current test sent and received; the runner starts a new list for each test. */
  exchanges: Exchange[] = [];

  constructor(readonly config: SuiteConfig) {}

  /** Keeps an exchange for the report (bodies cut at 64 KiB, so a large request costs little memory). */
  private record(exchange: Exchange): Exchange {
    if (this.config.recordExchanges) this.exchanges.push(exchange);
    return exchange;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      'content-type': 'application/json',
      ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
      ...extra,
    };
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpResult> {
    const requestBody = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const response = await fetch(`${this.config.baseURL}${path}`, {
      method,
      headers: this.headers(headers),
      body: requestBody,
    });
    const text = await response.text();
    this.record(httpExchange(method, path, requestBody, response, text));
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep the text
    }
    const contentType = response.headers.get('content-type') ?? '';
    // Every non-streaming answer, errors included, is JSON and says so.
    if (text !== '' && mediaType(contentType) !== 'application/json')
      throw new CheckFailed(
        'content-type',
        `${method} ${path} answered ${response.status} with content-type ${JSON.stringify(contentType)}, not application/json`,
      );
    return { status: response.status, body: parsed, contentType };
  }

  /** Creates a response (non-streaming), expecting 200 and a spec-exact ResponseResource. */
  async create(body: Record<string, unknown>): Promise<ResponseResource> {
    const result = await this.request('POST', '/responses', { model: this.config.model, ...body });
    if (result.status !== 200)
      throw new CheckFailed(
        'status',
        `POST /responses answered ${result.status}: ${JSON.stringify(result.body).slice(0, 300)}`,
      );
    return this.checkResponse(result.body);
  }

  checkResponse(body: unknown): ResponseResource {
    const checked = validate(ResponseResourceSchema, body);
    if (!checked.success)
      throw new CheckFailed(
        'schema',
        `ResponseResource: ${checked.issues
          .slice(0, 3)
          .map((i) => `${i.path}: ${i.message}`)
          .join('; ')}`,
      );
    checkItems(checked.data);
    return checked.data;
  }

  /**
   * Streams a response, decodes it strictly (`event:` equals each body's `type`, no `id:` fields, `[DONE]` at
   * the end) and runs the stream checker: any violation fails the test with its rule id.
   */
  async stream(body: Record<string, unknown>): Promise<{ events: AnyStreamingEvent[]; final: ResponseResource }> {
    const requestBody = JSON.stringify({ model: this.config.model, ...body, stream: true });
    const response = await fetch(`${this.config.baseURL}/responses`, {
      method: 'POST',
      headers: this.headers(),
      body: requestBody,
    });
    const text = await response.text();
    this.record(httpExchange('POST', '/responses', requestBody, response, text));
    if (response.status !== 200)
      throw new CheckFailed('status', `streaming POST /responses answered ${response.status}`);
    if (mediaType(response.headers.get('content-type')) !== 'text/event-stream')
      throw new CheckFailed('content-type', `streaming content type is ${response.headers.get('content-type')}`);
    const idLine = /^id:/m.exec(text);
    if (idLine) throw new CheckFailed('sse-id-field', 'the stream uses the SSE id: field, which servers should not');
    const missingName: string[] = [];
    const decoded = decodeSSE(once(new TextEncoder().encode(text)), {
      profile: 'spec',
      onWarning: (warning) => missingName.push(warning.message),
    });
    const events: AnyStreamingEvent[] = [];
    try {
      // In batches: the body is one chunk, so one promise for the whole stream instead of one per event.
      for await (const batch of decoded.batches()) for (const event of batch) events.push(event);
    } catch (error) {
      if (!(error instanceof SSEDecodeError)) throw error;
      const rule = SSE_RULES[error.code] ?? `sse-${error.code.replace(/_/g, '-')}`;
      throw new CheckFailed(rule, error.message);
    }
    if (missingName[0]) throw new CheckFailed('sse-event-name', missingName[0]);
    const violation = checkStream(events, { sawDone: decoded.sawDone }).find((v) => v.severity === 'error');
    if (violation) throw new CheckFailed(violation.rule, `event ${violation.eventIndex}: ${violation.message}`);
    const final = (events.at(-1) as { response?: ResponseResource } | undefined)?.response;
    if (!final) throw new CheckFailed('missing-terminal', 'no terminal response');
    checkItems(final);
    return { events, final };
  }

  /** Runs `use` with a fresh WebSocket connection, closing it afterwards. */
  async withSocket<T>(use: (socket: TestSocket) => Promise<T>): Promise<T> {
    const socket = await this.socket();
    try {
      return await use(socket);
    } finally {
      socket.close();
    }
  }

  /** A WebSocket connection with helpers to run `response.create` turns and to wait for messages. */
  async socket(): Promise<TestSocket> {
    const Impl = (this.config.WebSocket ?? (globalThis as { WebSocket?: unknown }).WebSocket) as
      | (new (
          url: string,
          options?: unknown,
        ) => WebSocketish)
      | undefined;
    if (!Impl) throw new Skip('no WebSocket implementation available');
    const url = `${this.config.baseURL.replace(/^http/, 'ws')}/responses`;
    const socket = this.config.WebSocket ? new Impl(url, { headers: this.headers() }) : new Impl(url);
    const exchange = this.record({ kind: 'websocket', method: 'GET', url, requestBody: '', responseBody: '' });
    const inbox: Array<Record<string, unknown>> = [];
    let read = 0;
    let closed = false;
    let wake: (() => void) | undefined;
    const send = (message: string) => {
      exchange.requestBody = capped(`${exchange.requestBody}${message}\n`);
      socket.send(message);
    };
    socket.addEventListener('message', (event: { data: unknown }) => {
      exchange.responseBody = capped(`${exchange.responseBody}${String(event.data)}\n`);
      inbox.push(JSON.parse(String(event.data)) as Record<string, unknown>);
      wake?.();
    });
    socket.addEventListener('close', () => {
      closed = true;
      wake?.();
    });
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => {
        exchange.status = 101;
        resolve();
      });
      socket.addEventListener('error', () => {
        exchange.error = 'the connection failed';
        reject(new CheckFailed('websocket', `could not open ${url}`));
      });
    });
    const model = this.config.model;
    /** Messages up to and including the `count`-th end of a turn (a terminal event or an error envelope). */
    const until = async (count: number, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        let ends = 0;
        const end = inbox.findIndex((m, i) => i >= read && endsTurn(m) && ++ends === count);
        if (end >= 0) {
          const messages = inbox.slice(read, end + 1);
          read = end + 1;
          return messages;
        }
        if (closed || Date.now() > deadline)
          throw new CheckFailed(
            'websocket',
            `${closed ? 'the connection closed' : `nothing within ${timeoutMs / 1000} s`} before the end of turn ${count}`,
          );
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
    };
    return {
      send: (body) => send(JSON.stringify({ type: 'response.create', model, ...body })),
      until,
      turn: async (body) => {
        send(JSON.stringify({ type: 'response.create', model, ...body }));
        const turn = await until(1);
        checkSocketTurn(turn);
        return turn;
      },
      get closed() {
        return closed;
      },
      close: () => socket.close(),
    };
  }
}

export interface TestSocket {
  /** Sends a `response.create` message (the model is filled in) without waiting. */
  send(body: Record<string, unknown>): void;
  /** Messages not read yet, up to the end of the `count`-th turn. */
  until(count: number, timeoutMs?: number): Promise<Array<Record<string, unknown>>>;
  /** Sends one turn and returns its messages, checked: the stream rules, or the error envelope's shape. */
  turn(body: Record<string, unknown>): Promise<Array<Record<string, unknown>>>;
  readonly closed: boolean;
  close(): void;
}

/** A turn ends with a terminal event, or with an error envelope (an `error` without a sequence_number). */
export function endsTurn(message: Record<string, unknown>): boolean {
  return isTerminalEventType(message.type) || (message.type === 'error' && !('sequence_number' in message));
}

/** A streamed turn passes the same stream rules as SSE; an error envelope carries a status and an error code. */
export function checkSocketTurn(turn: Array<Record<string, unknown>>): void {
  const last = turn.at(-1)!;
  if (last.type === 'error' && !('sequence_number' in last)) {
    const error = last.error as { code?: unknown; message?: unknown } | undefined;
    if (typeof last.status !== 'number' || typeof error?.code !== 'string' || typeof error.message !== 'string')
      throw new CheckFailed(
        'ws-error-envelope',
        `the error envelope lacks a status or an error.code: ${JSON.stringify(last).slice(0, 160)}`,
      );
    return;
  }
  const violation = checkStream(turn, {}).find((v) => v.severity === 'error');
  if (violation) throw new CheckFailed(violation.rule, `WebSocket event ${violation.eventIndex}: ${violation.message}`);
  const final = (last as { response?: ResponseResource }).response;
  if (final) checkItems(final);
}

const MAX_RECORDED_CHARS = 64 * 1024;
const capped = (text: string) => (text.length > MAX_RECORDED_CHARS ? text.slice(0, MAX_RECORDED_CHARS) : text);

function httpExchange(
  method: string,
  path: string,
  requestBody: string | undefined,
  response: Response,
  text: string,
): Exchange {
  return {
    kind: 'http',
    method,
    url: path,
    requestBody: requestBody === undefined ? undefined : capped(requestBody),
    status: response.status,
    responseHeaders: Object.fromEntries(response.headers),
    responseBody: capped(text),
  };
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

interface WebSocketish {
  send(data: string): void;
  close(): void;
  addEventListener(type: string, listener: (event: { data: unknown }) => void): void;
}

/** Every item of a response has an id, a type and a status (the prose's required item fields). */
function checkItems(response: ResponseResource): void {
  for (const [index, item] of response.output.entries()) {
    const fields = item as { id?: unknown; status?: unknown };
    if (typeof fields.id !== 'string' || typeof fields.status !== 'string')
      throw new CheckFailed('item-status', `output[${index}] (${item.type}) lacks an id or a status`);
  }
}

export function textOf(response: ResponseResource): string {
  return response.output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => ('text' in part ? part.text : ''))
    .join('');
}

export function expect(condition: unknown, rule: string, message: string): asserts condition {
  if (!condition) throw new CheckFailed(rule, message);
}

/** Checks the spec's error object: `{ error: { type, code, param, message } }` with the expected status. */
export function expectError(
  result: HttpResult,
  statuses: number[],
  rule: string,
  param?: string,
): { type: string; code: string | null; param: string | null; message: string } {
  expect(
    statuses.includes(result.status),
    rule,
    `expected HTTP ${statuses.join(' or ')}, got ${result.status}: ${JSON.stringify(result.body).slice(0, 200)}`,
  );
  const error = (result.body as { error?: Record<string, unknown> } | undefined)?.error;
  expect(
    error && typeof error.message === 'string' && typeof error.type === 'string' && 'code' in error && 'param' in error,
    'error-shape',
    `the body is not a spec error object: ${JSON.stringify(result.body).slice(0, 200)}`,
  );
  if (param)
    expect(error.param === param, 'error-param', `param is ${JSON.stringify(error.param)}, expected "${param}"`);
  return error as never;
}

/** One compliance test: a stable id, what it checks, its transport, and the check itself. */
export interface ComplianceTest {
  /** Stable id, used by --filter and in reports. */
  id: string;
  /** What the test checks, in one sentence. */
  description: string;
  /** The transport it runs on. */
  transport: 'http' | 'websocket';
  /** Needs the model to cooperate (recall, following a prompt); skipped with skipModelDependent. */
  modelDependent?: boolean;
  /** Runs the test; throws a `CheckFailed` naming the rule on failure. */
  run(context: TestContext): Promise<void>;
}

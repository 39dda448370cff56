import { checkStream, decodeSSE, type AnyStreamingEvent } from '@openresponses/events';
import type { ResponseResource } from '@openresponses/types';
import { ResponseResourceSchema, validate } from '@openresponses/zod';
import { CheckFailed, Skip, type SuiteConfig } from '../types.js';

export interface HttpResult {
  status: number;
  body: unknown;
}

/** What tests use to talk to the server under test: raw HTTP, checked streams, WebSocket turns. */
export class TestContext {
  constructor(readonly config: SuiteConfig) {}

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
    const response = await fetch(`${this.config.baseURL}${path}`, {
      method,
      headers: this.headers(headers),
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep the text
    }
    return { status: response.status, body: parsed };
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
    return checked.data;
  }

  /** Streams a response and runs the stream checker: any violation fails the test with its rule id. */
  async stream(body: Record<string, unknown>): Promise<{ events: AnyStreamingEvent[]; final: ResponseResource }> {
    const response = await fetch(`${this.config.baseURL}/responses`, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify({ model: this.config.model, ...body, stream: true }),
    });
    if (response.status !== 200 || !response.body)
      throw new CheckFailed('status', `streaming POST /responses answered ${response.status}`);
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream'))
      throw new CheckFailed('content-type', `streaming content type is ${response.headers.get('content-type')}`);
    const decoded = decodeSSE(response.body, { profile: 'lenient' });
    const events: AnyStreamingEvent[] = [];
    for await (const event of decoded) events.push(event);
    const violation = checkStream(events, { sawDone: decoded.sawDone }).find((v) => v.severity === 'error');
    if (violation) throw new CheckFailed(violation.rule, `event ${violation.eventIndex}: ${violation.message}`);
    const final = (events.at(-1) as { response?: ResponseResource } | undefined)?.response;
    if (!final) throw new CheckFailed('missing-terminal', 'no terminal response');
    return { events, final };
  }

  /** Runs `use` with a fresh WebSocket connection, closing it afterwards. */
  async withSocket<T>(use: (socket: Awaited<ReturnType<TestContext['socket']>>) => Promise<T>): Promise<T> {
    const socket = await this.socket();
    try {
      return await use(socket);
    } finally {
      socket.close();
    }
  }

  /** A WebSocket connection with a helper to run one `response.create` turn. */
  async socket(): Promise<{
    turn(body: Record<string, unknown>): Promise<Array<Record<string, unknown>>>;
    close(): void;
  }> {
    const Impl = (this.config.WebSocket ?? (globalThis as { WebSocket?: unknown }).WebSocket) as
      | (new (
          url: string,
          options?: unknown,
        ) => WebSocketish)
      | undefined;
    if (!Impl) throw new Skip('no WebSocket implementation available');
    const url = `${this.config.baseURL.replace(/^http/, 'ws')}/responses`;
    const socket = this.config.WebSocket ? new Impl(url, { headers: this.headers() }) : new Impl(url);
    const inbox: Array<Record<string, unknown>> = [];
    let wake: (() => void) | undefined;
    socket.addEventListener('message', (event: { data: unknown }) => {
      inbox.push(JSON.parse(String(event.data)) as Record<string, unknown>);
      wake?.();
    });
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve());
      socket.addEventListener('error', () => reject(new CheckFailed('websocket', `could not open ${url}`)));
    });
    return {
      turn: async (body) => {
        const start = inbox.length;
        socket.send(JSON.stringify({ type: 'response.create', model: this.config.model, ...body }));
        const deadline = Date.now() + 15_000;
        for (;;) {
          const messages = inbox.slice(start);
          const end = messages.findIndex(
            (m) =>
              ['response.completed', 'response.failed', 'response.incomplete'].includes(String(m.type)) ||
              (m.type === 'error' && 'status' in m),
          );
          if (end >= 0) {
            const turn = messages.slice(0, end + 1);
            // A streamed turn (not an error envelope) must pass the same stream rules as SSE.
            if (turn.at(-1)?.type !== 'error') {
              const violation = checkStream(turn, {}).find((v) => v.severity === 'error');
              if (violation)
                throw new CheckFailed(violation.rule, `WebSocket event ${violation.eventIndex}: ${violation.message}`);
            }
            return turn;
          }
          if (Date.now() > deadline)
            throw new CheckFailed('websocket', 'no terminal event or error envelope within 15 s');
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, 100);
          });
        }
      },
      close: () => socket.close(),
    };
  }
}

interface WebSocketish {
  send(data: string): void;
  close(): void;
  addEventListener(type: string, listener: (event: { data: unknown }) => void): void;
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

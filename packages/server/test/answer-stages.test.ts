// The layers that act on every answer (request ids, metrics and the overhead header, the request log, CORS
// headers, the error mapping) share one async frame; each must still see what it saw as a layer of its own.
// The real server on 127.0.0.1, driven with fetch and the openai SDK: a middleware that throws synchronously
// or rejects, with a spec error or with anything else, is answered with the spec's error object, a request id,
// the CORS headers and one log entry.
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import { ResponsesError } from '../src/errors.js';
import {
  corsHeaders,
  corsHeaderValues,
  OVERHEAD_HEADER,
  type Middleware,
  type RequestLog,
  thousandthsText,
} from '../src/handler/middleware.js';
import type { ServiceRequest } from '../src/exchange.js';
import { startServer, type RunningServer } from '../src/node/index.js';

const KEY = 'answer-stages-key';
const logged: RequestLog[] = [];

/** Fails as the `x-fault` header asks: thrown synchronously or rejected, a spec error or a plain one. */
const faulty: Middleware = (request, next) => {
  switch (request.header('x-fault')) {
    case 'sync':
      throw new Error('a synchronous failure');
    case 'async':
      return Promise.reject(new Error('an asynchronous failure'));
    case 'sync-spec':
      throw new ResponsesError('invalid_request', 'fault_sync', 'Refused synchronously.', 'x-fault', 422);
    case 'async-spec':
      return Promise.reject(new ResponsesError('invalid_request', 'fault_async', 'Refused later.', 'x-fault', 409));
    default:
      return next(request);
  }
};

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    apiKeys: [KEY],
    cors: true,
    warn: () => {},
    onRequest: (entry) => logged.push(entry),
    middleware: [faulty],
  });
});
afterAll(() => server.close());
afterEach(() => {
  logged.length = 0;
  vi.restoreAllMocks();
});

function post(fault: string | undefined, requestId?: string): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    authorization: `Bearer ${KEY}`,
    origin: 'https://app.example',
  };
  if (fault) headers['x-fault'] = fault;
  if (requestId) headers['x-request-id'] = requestId;
  const body = JSON.stringify({ model: 'openresponses-deterministic', input: 'Hello!' });
  return fetch(`${server.url}/v1/responses`, { method: 'POST', headers, body });
}

test.each([
  ['sync', 500, 'server_error', 'internal_error', null],
  ['async', 500, 'server_error', 'internal_error', null],
  ['sync-spec', 422, 'invalid_request', 'fault_sync', 'x-fault'],
  ['async-spec', 409, 'invalid_request', 'fault_async', 'x-fault'],
])('a middleware failing %s is answered %i with the spec error object', async (fault, status, type, code, param) => {
  const unexpected = vi.spyOn(console, 'error').mockImplementation(() => {});
  const response = await post(fault, `req-${fault}`);
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.headers.get('x-request-id')).toBe(`req-${fault}`);
  expect(response.headers.get('access-control-allow-origin')).toBe('*');
  const body = (await response.json()) as { error: Record<string, unknown> };
  expect(body.error).toMatchObject({ type, code, param });
  expect(typeof body.error.message).toBe('string');
  // What is not a spec error is a server bug: reported, its words not sent.
  if (status === 500) {
    expect(unexpected).toHaveBeenCalledTimes(1);
    expect(body.error.message).not.toContain('failure');
  } else expect(unexpected).not.toHaveBeenCalled();
  expect(logged).toMatchObject([{ method: 'POST', path: '/v1/responses', status, requestId: `req-${fault}` }]);
});

test('the openai SDK reads a failing middleware as an APIError with its status, code, param and request id', async () => {
  const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const failure = await client.responses
    .create({ model: 'openresponses-deterministic', input: 'Hi' }, { headers: { 'x-fault': 'async-spec' } })
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(OpenAI.APIError);
  const apiError = failure as InstanceType<typeof OpenAI.APIError>;
  expect(apiError.status).toBe(409);
  expect(apiError.code).toBe('fault_async');
  expect(apiError.param).toBe('x-fault');
  expect(apiError.requestID).toMatch(/^req_/);
});

test('a turn passes every stage: request id, overhead header, CORS headers, one log entry with its usage', async () => {
  const response = await post(undefined);
  expect(response.status).toBe(200);
  const id = response.headers.get('x-request-id');
  expect(id).toMatch(/^req_/);
  expect(Number(response.headers.get(OVERHEAD_HEADER))).toBeGreaterThanOrEqual(0);
  expect(response.headers.get('access-control-expose-headers')).toContain('x-request-id');
  expect(((await response.json()) as { status: string }).status).toBe('completed');
  expect(logged).toHaveLength(1);
  expect(logged[0]).toMatchObject({ status: 200, requestId: id, model: 'openresponses-deterministic' });
  expect(logged[0]!.outputTokens).toBeGreaterThan(0);
});

test('the CORS stage marks an answer with every header corsHeaderValues gives, over any it had', () => {
  const values = corsHeaderValues({ origin: 'https://app.example' }, ['authorization', 'content-type']);
  const headers = { 'content-type': 'application/json', 'access-control-allow-origin': '*' };
  const answer = corsHeaders(values).answered({} as ServiceRequest, { status: 200, headers, body: '{}' }, 0);
  expect(answer.headers).toEqual({ 'content-type': 'application/json', ...values });
  expect(Object.keys(values)).toHaveLength(4);
});

test("the overhead header's text is toFixed(3)'s for every time, ties and their neighbours too", () => {
  const ties = [0.0005, 1.0005, 2.0015, 1.2345, 0.0105, 999.9995, 0.0015, 12.3455, 4.9985];
  const times = [0, 0.001, 0.05, 0.1, 1, 9.999, 10.0004, 123.4564, 1e9 - 0.0005, 1e12, 5e14 + 0.25, -0.0004, -1.5];
  for (const tie of ties) times.push(tie, tie + Number.EPSILON * tie, tie - Number.EPSILON * tie);
  // Seeded, so a failure names the same times on every run.
  let seed = 35;
  const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 20_000; i++) times.push(next() * 10 ** Math.floor(next() * 8 - 2));
  for (const ms of times) expect([ms, thousandthsText(ms)]).toEqual([ms, ms.toFixed(3)]);
});

test('a preflight is answered 204 before authentication, with the CORS headers and a request id', async () => {
  const response = await fetch(`${server.url}/v1/responses`, {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
  });
  expect(response.status).toBe(204);
  expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS');
  expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  expect(logged).toMatchObject([{ method: 'OPTIONS', status: 204 }]);
});

// The CLI's request log lines: every field of the hook in both formats, and values a client chose kept to
// one bounded line (a model name cannot forge a second log line).
import { describe, expect, test } from 'vitest';
import { createResponsesService, type RequestLog } from '../src/index.js';
import { failureLogger, jsonLine, operatorFailure, requestLogger, textLine } from '../src/node/request-log.js';

const entry: RequestLog = {
  method: 'POST',
  path: '/v1/responses',
  route: '/v1/responses',
  status: 200,
  durationMs: 41.23456,
  requestId: 'req_abc',
  model: 'llama3.2',
  inputTokens: 19,
  outputTokens: 5,
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
};
const time = new Date('2026-01-15T10:00:00.000Z');

describe('request log lines', () => {
  test('json: one object with every field', () => {
    expect(JSON.parse(jsonLine(entry, time))).toEqual({
      time: '2026-01-15T10:00:00.000Z',
      method: 'POST',
      route: '/v1/responses',
      path: '/v1/responses',
      status: 200,
      durationMs: 41.235,
      requestId: 'req_abc',
      model: 'llama3.2',
      inputTokens: 19,
      outputTokens: 5,
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
  });

  test('text: one line, and what is unknown is left out', () => {
    expect(textLine(entry, time)).toBe(
      '2026-01-15T10:00:00.000Z POST /v1/responses 200 41.2 ms req_abc model=llama3.2 tokens=19+5 trace=4bf92f3577b34da6a3ce929d0e0e4736',
    );
    expect(textLine({ method: 'GET', path: '/nope', status: 404, durationMs: 0.4, requestId: undefined }, time)).toBe(
      '2026-01-15T10:00:00.000Z GET /nope 404 0.4 ms',
    );
  });

  test('a client-chosen value cannot break the line or run long', () => {
    const hostile = {
      ...entry,
      model: `x\n2026-01-15T10:00:00.000Z POST /admin 200\r\u2028${'y'.repeat(500)}`,
      requestId: 'a\u0000b',
    };
    for (const format of ['text', 'json'] as const) {
      const lines: string[] = [];
      requestLogger(format, (line) => lines.push(line))(hostile);
      expect(lines).toHaveLength(1);
      expect(lines[0]).not.toMatch(/[\n\r\u0000\u2028]/);
      expect(lines[0]!.length).toBeLessThan(450);
    }
    expect(JSON.parse(jsonLine(hostile, time)).model).toMatch(/^x\?2026-01-15T10:00:00\.000Z POST \/admin 200\?\?y+$/);
  });

  test('bidirectional formatting characters (U+202E and kin) and secrets reach neither format', () => {
    const hostile = {
      ...entry,
      model: 'gpt\u202Egnp.exe\u2066x\u200Fy\u061Cz\uFEFF',
      path: '/v1/responses?token=hunter2hunter2',
      requestId: 'Bearer abcdefghijklmnop',
    };
    for (const format of ['text', 'json'] as const) {
      const lines: string[] = [];
      requestLogger(format, (line) => lines.push(line))(hostile);
      expect(lines[0]).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\uFEFF]/);
      expect(lines[0]).toContain('gpt?gnp.exe?x?y?z?');
      expect(lines[0]).not.toContain('hunter2');
      expect(lines[0]).not.toContain('abcdefghijklmnop');
    }
  });

  const failed: RequestLog = {
    ...entry,
    failure: {
      type: 'server_error',
      code: 'upstream_unavailable',
      status: 502,
      message: 'The upstream model could not be reached (fetch failed: connect ECONNREFUSED 127.0.0.1:9).',
      provider: 'local-llama',
    },
    upstream: 'secondary',
  };

  test('a failed turn: its code, status, type, route, upstream and message in both formats', () => {
    expect(textLine(failed, time)).toBe(
      '2026-01-15T10:00:00.000Z POST /v1/responses 200 41.2 ms req_abc model=llama3.2 tokens=19+5 trace=4bf92f3577b34da6a3ce929d0e0e4736' +
        ' failed=upstream_unavailable status=502 type=server_error provider=local-llama upstream=secondary' +
        ' message="The upstream model could not be reached (fetch failed: connect ECONNREFUSED 127.0.0.1:9)."',
    );
    expect(JSON.parse(jsonLine(failed, time))).toMatchObject({ failure: failed.failure, upstream: 'secondary' });
  });

  test("a failure's message keeps to one bounded line, redacted before it is cut", () => {
    // A key-shaped secret that straddles the cut: cutting first would leave its prefix behind.
    const secret = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345';
    const message = `${'x'.repeat(489)} ${secret}\nforged line\u202E`;
    for (const format of ['text', 'json'] as const) {
      const lines: string[] = [];
      requestLogger(format, (line) => lines.push(line))({ ...failed, failure: { ...failed.failure!, message } });
      expect(lines).toHaveLength(1);
      expect(lines[0]).not.toMatch(/[\n\u202E]/);
      expect(lines[0]).not.toContain('sk-pr');
      expect(lines[0]!.length).toBeLessThan(1000);
    }
  });

  test("the default log: failed turns that are the upstream's or the server's (5xx, 429) only", () => {
    const lines: string[] = [];
    const log = failureLogger((line) => lines.push(line));
    const withFailure = (status: number, code: string, type = 'server_error') =>
      log({ ...entry, failure: { type, code, status, message: `m ${code}` } });
    log(entry);
    withFailure(400, 'upstream_rejected_request', 'invalid_request');
    withFailure(500, 'cancelled');
    withFailure(500, 'upstream_authentication_failed');
    withFailure(504, 'upstream_timeout');
    withFailure(429, 'rate_limited', 'too_many_requests');
    expect(lines.map((line) => /failed=(\S+)/.exec(line)?.[1])).toEqual([
      'upstream_authentication_failed',
      'upstream_timeout',
      'rate_limited',
    ]);
  });

  test('a hook with failedTurns hears only the failed turns it asks for, the service building no entry for any other request', async () => {
    expect(failureLogger(() => {}).failedTurns).toBe(operatorFailure);
    const heard = async (
      hook: ((entry: RequestLog) => void) & { failedTurns?: (failure: { code: string }) => boolean },
    ) => {
      const entries: RequestLog[] = [];
      const asked: string[] = [];
      const onRequest = Object.assign(
        (entry: RequestLog) => void entries.push(entry),
        hook.failedTurns
          ? { failedTurns: (failure: { code: string }) => (asked.push(failure.code), hook.failedTurns!(failure)) }
          : {},
      );
      const service = createResponsesService({ onRequest });
      const post = async (body: object) => {
        const answer = await service.handle({
          method: 'POST',
          path: '/v1/responses',
          header: (name) => (name === 'content-type' ? 'application/json' : null),
          text: async () => JSON.stringify(body),
        });
        if (answer.body && typeof answer.body === 'object') await answer.body.pipe(() => {});
        return answer.status;
      };
      expect(await post({ input: 'hello' })).toBe(200);
      expect(await post({ input: 'hello [fail]' })).toBe(500);
      expect(await post({ input: 'hello [fail]', stream: true })).toBe(200);
      expect(await post({ input: 42 })).toBe(400);
      return { entries, asked };
    };
    const all = await heard(() => {});
    expect(all.entries.map((entry) => [entry.status, entry.failure?.code])).toEqual([
      [200, undefined],
      [500, 'model_failed'],
      [200, 'model_failed'],
      [400, 'invalid_value'],
    ]);
    // Asked of every failed turn; only the 5xx ones are heard.
    const failed = await heard(
      Object.assign(() => {}, {
        failedTurns: (failure: { code: string; status?: number }) => failure.code !== 'invalid_value',
      }),
    );
    expect(failed.asked).toEqual(['model_failed', 'model_failed', 'invalid_value']);
    expect(failed.entries.map((entry) => [entry.status, entry.failure?.code, entry.model])).toEqual([
      [500, 'model_failed', 'openresponses-deterministic'],
      [200, 'model_failed', 'openresponses-deterministic'],
    ]);
    const none = await heard(Object.assign(() => {}, { failedTurns: () => false }));
    expect(none.asked).toHaveLength(3);
    expect(none.entries).toEqual([]);
  });
});

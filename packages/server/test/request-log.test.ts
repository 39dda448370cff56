// The CLI's request log lines: every field of the hook in both formats, and values a client chose kept to
// one bounded line (a model name cannot forge a second log line).
import { describe, expect, test } from 'vitest';
import type { RequestLog } from '../src/index.js';
import { failureLogger, jsonLine, requestLogger, textLine } from '../src/node/request-log.js';

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
});

// The CLI's request log lines: every field of the hook in both formats, and values a client chose kept to
// one bounded line (a model name cannot forge a second log line).
import { describe, expect, test } from 'vitest';
import type { RequestLog } from '../src/index.js';
import { jsonLine, requestLogger, textLine } from '../src/node/request-log.js';

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
});

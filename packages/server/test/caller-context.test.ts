// The caller's trace context as a request's server span reads it (callerContext, telemetry/traceparent.ts): under
// the W3C propagators a request with no `tracestate` or `baggage` has its `traceparent` parsed by our own
// parser, anything else goes through the registered propagator's `extract`. Both are held against that
// `extract` itself over many headers (valid, malformed, other versions, with and without tracestate and
// baggage; test/caller-context-cases.ts, in a child process), the propagator shown not to be asked on the
// parsed path; any other propagator is asked for every request.
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { builtScript } from './built-script.js';

interface Read {
  unchanged: boolean;
  span?: { traceId: string; spanId: string; traceFlags: number; isRemote?: boolean; traceState?: string };
  baggage?: Array<[string, { value: string }]>;
}
interface Line {
  name: string;
  headers: Record<string, string>;
  expected: Read;
  read: Read;
  asked: boolean;
  span?: Read['span'];
  tenant?: string;
}

const run = spawnSync(process.execPath, [await builtScript('caller-context-cases')], { encoding: 'utf8' });
const lines = run.stdout
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Line);
const under = (name: string) => lines.filter((line) => line.name === name);

test('the cases ran', () => {
  expect(run.stderr).toBe('');
  expect(under('w3c')).toHaveLength(20 * 4 * 4);
});

test("under the W3C propagators: the caller's context read as their extract reads it, traceparent alone by our parser", () => {
  let parsed = 0;
  for (const { headers, expected, read, asked } of under('w3c')) {
    expect({ headers, ...read }).toEqual({ headers, ...expected });
    // Asked only for a request carrying baggage, or a tracestate beside a traceparent.
    const carries = Boolean(headers.baggage) || (Boolean(headers.traceparent) && Boolean(headers.tracestate));
    expect({ headers, asked }).toEqual({ headers, asked: carries });
    if (!asked && read.span) parsed++;
  }
  // Our parser read a caller's trace from the 8 valid headers (flags 01, 00, 02, ff, a space before or after,
  // version 01 with a part more, version cc), each without tracestate or with an empty one, and without baggage
  // or with an empty one: not only nothing from the others.
  expect(parsed).toBe(8 * 2 * 2);
});

test("values already in the context stay beside the caller's span", () => {
  const [kept] = under('kept');
  expect(kept?.span).toEqual({
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: 1,
    isRemote: true,
  });
  expect(kept?.tenant).toBe('acme');
});

test('any other propagator (another header read, or none read at all) is asked for every request', () => {
  for (const name of ['other', 'writes only']) {
    const requests = under(name);
    expect(requests).toHaveLength(20 * 4 * 4 + 1);
    for (const { headers, expected, read, asked } of requests) {
      expect({ headers, ...read }).toEqual({ headers, ...expected });
      expect({ headers, asked }).toEqual({ headers, asked: true });
    }
  }
});

// Our OTLP protobuf encoder (telemetry/otlp-protobuf.ts) against the SDK's own serializer: the same ended
// spans (every attribute value type, events, links, status with and without a message, every kind, with and
// without a parent, a remote parent, trace state, two resources and two scopes, non-ASCII text, large and
// negative numbers, a span over 16 KiB) give the same request bytes. The CLI's own tracer (node/own-tracer.ts),
// given the same calls, records what the SDK's tracer records, ids and times aside, and its spans (starting
// attributes kept apart, frozen sets encoded once) encode to the same bytes as the SDK serializer makes of
// them. The spans are made and serialized in a child process (test/otlp-protobuf-cases.ts): the test runner
// cannot load the SDK's ESM builds.
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { ProtobufBuffer } from '../src/telemetry/otlp-protobuf.js';
import { builtScript } from './built-script.js';

test('the same ended spans give the same request bytes as the SDK serializer, in any order', async () => {
  const run = spawnSync(process.execPath, [await builtScript('otlp-protobuf-cases')], {
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  const lines = run.stdout.trim().split('\n');
  const cases = lines
    .slice(0, -1)
    .map((line) => JSON.parse(line) as { name: string; spans: number; ours: string; theirs: string });
  expect(cases.map(({ name, spans }) => [name, spans])).toEqual([
    ['every shape, two resources', 10],
    ['other order', 10],
    ["the own tracer's spans", 63],
    ['a list changed in place, before', 1],
    ['a list changed in place, after', 1],
  ]);
  for (const { name, ours, theirs } of cases) {
    expect(theirs.length).toBeGreaterThan(name.startsWith('a list') ? 100 : 40_000);
    expect(ours).toBe(theirs);
  }
  const { sdk, own } = JSON.parse(lines.at(-1)!) as { sdk: Array<Record<string, unknown>>; own: unknown[] };
  expect(sdk).toHaveLength(9);
  expect(own).toHaveLength(63);
  expect(sdk.map((span) => span.name)).toContain('POST');
  expect(own.slice(0, 9)).toEqual(sdk);
});

test('time stamps past 2^53 nanoseconds and int64 attribute values encode exactly', () => {
  for (const time of <Array<[number, number]>>[
    [0, 0],
    [1_764_374_400, 999_999_999],
    [4_294_967_295, 123],
    [4_294_967_295, 999_999_999],
    [2_147_483_648, 500_000_000],
    [18_000_000_000, 5],
  ]) {
    const out = new ProtobufBuffer(8);
    out.time(time);
    const expected = BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
    expect(Buffer.from(out.written()).readBigUInt64LE(0)).toBe(expected);
  }
  for (const value of [
    0,
    127,
    128,
    2 ** 32 - 1,
    2 ** 32,
    2 ** 53 - 1,
    2 ** 62,
    -1,
    -(2 ** 31),
    -(2 ** 53),
    -(2 ** 63),
  ]) {
    const out = new ProtobufBuffer(1);
    out.int64(value);
    let decoded = 0n;
    const bytes = out.written();
    for (let i = bytes.length - 1; i >= 0; i--) decoded = (decoded << 7n) | BigInt(bytes[i]! & 0x7f);
    expect(BigInt.asIntN(64, decoded)).toBe(BigInt(value));
  }
});

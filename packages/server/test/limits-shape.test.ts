// The resolved limits are read at every limit a turn checks (readBody's, the stream's, the upstream's): an object V8
// keeps in dictionary mode is read there by a generic load (~80-110 instructions a read, callgrind) where one with
// fast properties is read inline.
import { setFlagsFromString } from 'node:v8';
import { describe, expect, test } from 'vitest';
import { DEFAULT_LIMITS, resolveLimits } from '../src/limits.js';

setFlagsFromString('--allow-natives-syntax');
const fastProperties = new Function('object', 'return %HasFastProperties(object)') as (object: object) => boolean;

describe('resolveLimits', () => {
  test('answers an object with fast properties, with the defaults or with overrides', () => {
    expect(fastProperties(DEFAULT_LIMITS)).toBe(true);
    expect(fastProperties(resolveLimits())).toBe(true);
    expect(fastProperties(resolveLimits({ maxBodyBytes: 1024, rateLimitPerSecond: 2.5 }))).toBe(true);
  });

  test('applies overrides over the defaults and derives the burst from the rate', () => {
    const limits = resolveLimits({ maxBodyBytes: 1024, rateLimitPerSecond: 2.5, maxTools: undefined });
    expect(limits).toEqual({ ...DEFAULT_LIMITS, maxBodyBytes: 1024, rateLimitPerSecond: 2.5, rateLimitBurst: 3 });
    expect(() => resolveLimits({ maxTools: -1 })).toThrow('limits.maxTools must be a non-negative finite number');
  });
});

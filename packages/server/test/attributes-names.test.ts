// The stable HTTP attribute and metric names the server copies instead of depending on
// @opentelemetry/semantic-conventions (9.4 MB installed): each equals the package's own.
import * as conventions from '@opentelemetry/semantic-conventions';
import { expect, test } from 'vitest';
import * as attributes from '../src/telemetry/attributes.js';

test('every copied ATTR_/METRIC_ name equals the one in @opentelemetry/semantic-conventions', () => {
  const copied = Object.entries(attributes).filter(([name]) =>
    /^(ATTR|METRIC)_HTTP_|^ATTR_(ERROR|NETWORK|SERVER|URL)_/.test(name),
  );
  expect(copied.length).toBeGreaterThanOrEqual(13);
  for (const [name, value] of copied)
    if (name in conventions) expect(value, name).toBe((conventions as Record<string, unknown>)[name]);
  expect(attributes.ATTR_HTTP_REQUEST_METHOD).toBe(conventions.ATTR_HTTP_REQUEST_METHOD);
  expect(attributes.METRIC_HTTP_SERVER_REQUEST_DURATION).toBe(conventions.METRIC_HTTP_SERVER_REQUEST_DURATION);
});

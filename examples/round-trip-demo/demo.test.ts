// The demo as a third-party project runs it: against the real reference server on 127.0.0.1.
import { InMemoryResponseStore } from '@openresponses/server';
import { startServer, type RunningServer } from '@openresponses/server/node';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runDemo } from './demo.js';

let server: RunningServer;
const store = new InMemoryResponseStore();
beforeAll(async () => {
  server = await startServer({ apiKeys: ['demo-key'], validateOutgoing: true, warn: () => {}, store });
});
afterAll(() => server.close());

test('the round trip: create, stream, tool loop, multi-turn recall', async () => {
  const transcript = (await runDemo({ baseURL: `${server.url}/v1`, apiKey: 'demo-key' })).join('\n');
  expect(transcript).toContain('model: You said: "Hello! My name is Ada.".');
  expect(transcript).toMatch(
    /model: You said: "Stream a short answer, please. \[think\]".\s+\[\d+ events; output: reasoning, message\]/,
  );
  expect(transcript).toContain('tools ran: get_weather(Lisbon), get_time(Lisbon)');
  expect(transcript).toContain(
    'get_weather returned {"city":"Lisbon","sky":"sunny","temperature_c":22}; get_time returned 14:05.',
  );
  expect(transcript).toContain('model: Your name is Ada.');
});

test('with store: false (npm start against a shared store) the same round trip stores nothing', async () => {
  const before = store.size;
  const transcript = (await runDemo({ baseURL: `${server.url}/v1`, apiKey: 'demo-key', store: false })).join('\n');
  expect(transcript).toContain('tools ran: get_weather(Lisbon), get_time(Lisbon)');
  expect(transcript).toContain('4. multi-turn (store: false: the first turn resent as input)');
  expect(transcript).toContain('model: Your name is Ada.');
  expect(store.size).toBe(before);
  // The stored run before it did write: the count can see it.
  await runDemo({ baseURL: `${server.url}/v1`, apiKey: 'demo-key' });
  expect(store.size).toBeGreaterThan(before);
});

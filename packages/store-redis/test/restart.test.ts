// Restart: both server processes and Redis (append-only file on) stop; after they start again every stored
// response is still there, and chains continue.
import OpenAI from 'openai';
import { afterAll, expect, test } from 'vitest';
import { type Instance, KEYS, startInstance } from './instances.js';
import { type RedisServer, startRedis } from '../../../test-support/redis-server.js';

let redis: RedisServer | undefined;
let instances: Instance[] = [];
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  await redis?.dispose();
});

const MODEL = 'openresponses-deterministic';
const start = () => Promise.all([0, 1].map(() => startInstance({ OPENRESPONSES_STORE_URL: redis!.url })));
const client = (instance: Instance) => new OpenAI({ baseURL: `${instance.url}/v1`, apiKey: KEYS[0], maxRetries: 0 });

test('stored responses survive restarting both servers and Redis', async () => {
  redis = await startRedis({ persistence: true });
  instances = await start();
  const stored: Array<{ id: string; output: unknown }> = [];
  let previous: string | undefined;
  for (let turn = 0; turn < 10; turn++) {
    const created = await client(instances[turn % 2]!).responses.create({
      model: MODEL,
      input: turn === 0 ? 'My name is Lovelace.' : `Turn ${turn}`,
      ...(previous ? { previous_response_id: previous } : {}),
    });
    stored.push({ id: created.id, output: created.output });
    previous = created.id;
  }

  await Promise.all(instances.map((instance) => instance.stop()));
  await redis.stop(); // SIGKILL: only what the append-only file holds comes back
  await redis.restart();
  instances = await start();

  for (const [index, { id, output }] of stored.entries()) {
    const fetched = await client(instances[index % 2]!).responses.retrieve(id);
    expect(fetched.output).toEqual(output);
  }
  const recalled = await client(instances[1]!).responses.create({
    model: MODEL,
    previous_response_id: previous,
    input: 'What is my name?',
  });
  expect(recalled.output_text).toBe('Your name is Lovelace.');
});

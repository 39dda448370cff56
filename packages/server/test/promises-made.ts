// Promises a piece of work makes (async_hooks' PROMISE inits while it runs), for the tests that pin how many
// promises a path makes: a layer's frame or `.then` more shows as a count, where timing it would be noise.
import { createHook } from 'node:async_hooks';
import { expect } from 'vitest';
import type { ResponsesService } from '../src/index.js';

/** `work`'s result and the promises made while it ran. */
export async function promisesMadeBy<T>(work: () => Promise<T>): Promise<{ made: number; result: T }> {
  let made = 0;
  const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && made++) });
  hook.enable();
  let result: T;
  try {
    result = await work();
  } finally {
    hook.disable();
  }
  return { made, result };
}

const streamedTurn = JSON.stringify({
  model: 'openresponses-deterministic',
  input: 'Hello!',
  stream: true,
  store: false,
});

/**
 * The promises one streamed turn of the deterministic model makes through `service`, answered and its stream
 * written; `beforePipe` runs between the two (what has happened before the stream is written).
 */
export async function promisesOfStreamedTurn(service: ResponsesService, beforePipe?: () => void): Promise<number> {
  const { made } = await promisesMadeBy(async () => {
    const answer = await service.handle({
      method: 'POST',
      path: '/v1/responses',
      header: (name) => (name === 'content-type' ? 'application/json' : null),
      text: async () => streamedTurn,
    });
    if (answer.body === null || typeof answer.body === 'string')
      throw new Error(`not a stream: ${answer.status} ${answer.body}`);
    beforePipe?.();
    await answer.body.pipe(() => {});
    expect(answer.status).toBe(200);
  });
  return made;
}

// listedModelNames: a provider's model names as they may leave the process (GET /v1/models, metric labels).
import { describe, expect, test } from 'vitest';
import { listedModelNames } from '../src/models/model-list.js';
import type { ModelProvider } from '../src/models/provider.js';

const providerListing = (listModels: () => unknown): ModelProvider =>
  ({ name: 'listing', listModels }) as unknown as ModelProvider;

describe('listedModelNames', () => {
  test('a list given at once is answered at once, not as a promise', () => {
    expect(listedModelNames(providerListing(() => ['a', 'b']))).toEqual(['a', 'b']);
  });

  test('a promise, or a thenable that is not a native promise, is awaited', async () => {
    expect(await listedModelNames(providerListing(async () => ['p']))).toEqual(['p']);
    // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a native promise is the case under test
    const thenable = { then: (resolve: (names: string[]) => void) => resolve(['t']) };
    expect(await listedModelNames(providerListing(() => thenable))).toEqual(['t']);
  });

  test('a listing that throws, rejects or is not a list counts as none', async () => {
    expect(
      listedModelNames(
        providerListing(() => {
          throw new Error('down');
        }),
      ),
    ).toEqual([]);
    expect(await listedModelNames(providerListing(() => Promise.reject(new Error('down'))))).toEqual([]);
    expect(await listedModelNames(providerListing(() => ({ data: ['x'] })))).toEqual([]);
  });

  test('a name shaped like a secret or holding a control character is left out', () => {
    const names = ['ok', 'sk-proj-Zq7Xw3Vb9Nm2Lk5Jh8Gf4Ds1Ap6Oi0Uy', 'bad\u0007name'];
    expect(listedModelNames(providerListing(() => names))).toEqual(['ok']);
  });
});

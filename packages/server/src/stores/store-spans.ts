// A store's calls as child spans (`store getChain`, …) of an explicit parent: the turn's span for the turn
// runner's reads and writes, the request's server span for the routes' own. The parent is passed, not read
// from an active context (see telemetry/tracing.ts for why).
import type { Context } from '@opentelemetry/api';
import { endSpan, type SpanScope, sampledOutUnder, startChildSpan, within } from '../telemetry/tracing.js';
import type { ResponseStore } from './contract.js';

/**
 * `store` with a child span of `parent` per call, or `store` itself when `parent` carries no span (no
 * tracing, or the call is not part of a traced request) or a span that records nothing (its trace was
 * sampled out): then nothing is made.
 */
export function storeSpans(store: ResponseStore, parent: Context | undefined): ResponseStore {
  if (parent === undefined || sampledOutUnder(parent)) return store;
  const kind = store.constructor?.name ?? 'ResponseStore';
  const traced = <T>(operation: string, call: () => Promise<T>): Promise<T> => {
    const scope = startChildSpan(`store ${operation}`, parent, {
      'db.operation.name': operation,
      'openresponses.store': kind,
    });
    return scope ? ended(scope, within(scope, call)) : call();
  };
  return {
    get: (id, owner) => traced('get', () => store.get(id, owner)),
    getChain: (id, owner) => traced('getChain', () => store.getChain(id, owner)),
    getItem: (id, owner) => traced('getItem', () => store.getItem(id, owner)),
    put: (entry, owner, text) => traced('put', () => store.put(entry, owner, text)),
    update: (id, owner, change) => traced('update', () => store.update(id, owner, change)),
    delete: (id, owner) => traced('delete', () => store.delete(id, owner)),
  };
}

function ended<T>(scope: SpanScope, call: Promise<T>): Promise<T> {
  return call.then(
    (value) => {
      endSpan(scope.span);
      return value;
    },
    (error: unknown) => {
      endSpan(scope.span, error);
      throw error;
    },
  );
}

// A store's calls as child spans (`store getChain`, …) of an explicit parent: the turn's span for the turn
// runner's reads and writes, the request's server span for the routes' own. The parent is passed, not read
// from an active context (see telemetry/tracing.ts for why).
import type { Attributes, Context } from '@opentelemetry/api';
import { AttributeSets } from '../telemetry/attributes.js';
import { endSpan, type SpanScope, sampledOutUnder, startChildSpan, within } from '../telemetry/tracing.js';
import type { ResponseStore, StoredResponse, StoredResponseText } from './contract.js';
import { PUT_AT_ONCE, putAtOnce } from './memory.js';

type Operation = 'get' | 'getChain' | 'getItem' | 'put' | 'update' | 'delete';

/** A store span's name and starting attributes. */
interface StoreSpanStart {
  readonly name: string;
  readonly attributes: Attributes;
}

/**
 * A store class's span starts by operation, made once (frozen: the encoder writes a frozen set's kept bytes, where
 * an attribute object made per call was encoded key by key each time).
 */
type StoreSpanStarts = Readonly<Record<Operation, StoreSpanStart>>;
const OPERATIONS: readonly Operation[] = ['get', 'getChain', 'getItem', 'put', 'update', 'delete'];
const startsByKind = new AttributeSets<StoreSpanStarts>();
const startsOf = (kind: string): StoreSpanStarts => startsByKind.get(kind, undefined, undefined, undefined, startsMade);
const startsMade = (kind: string): StoreSpanStarts => {
  const starts = {} as Record<Operation, StoreSpanStart>;
  for (const operation of OPERATIONS)
    starts[operation] = Object.freeze({
      name: `store ${operation}`,
      attributes: Object.freeze({ 'db.operation.name': operation, 'openresponses.store': kind }),
    });
  return starts;
};

/**
 * `store` with a child span of `parent` per call, or `store` itself when `parent` carries no span (no
 * tracing, or the call is not part of a traced request) or a span that records nothing (its trace was
 * sampled out): then nothing is made.
 */
export function storeSpans(store: ResponseStore, parent: Context | undefined): ResponseStore {
  if (parent === undefined || sampledOutUnder(parent)) return store;
  return new TracedStore(store, parent, startsOfStore(store));
}

/**
 * The span starts of `store`'s class: those of the store last asked for again (a server has one store), not its
 * constructor's name read and looked up each traced turn (~150 instructions: the name is an API getter).
 */
function startsOfStore(store: ResponseStore): StoreSpanStarts {
  if (store !== lastStore) {
    lastStarts = startsOf(store.constructor?.name ?? 'ResponseStore');
    lastStore = store;
  }
  return lastStarts!;
}
let lastStore: ResponseStore | undefined;
let lastStarts: StoreSpanStarts | undefined;

/**
 * The wrapper of one traced turn or request: one object of one class (not a closure per method made per turn),
 * so every traced turn's store calls run through the same shape.
 */
class TracedStore implements ResponseStore {
  constructor(
    private readonly store: ResponseStore,
    private readonly parent: Context,
    private readonly starts: StoreSpanStarts,
  ) {}

  // The store's method and its arguments, not a closure per call.
  private traced<A extends unknown[], T>(
    operation: Operation,
    call: (...args: A) => Promise<T>,
    ...args: A
  ): Promise<T> {
    const start = this.starts[operation];
    const scope = startChildSpan(start.name, this.parent, start.attributes);
    return scope ? ended(scope, within(scope, call, this.store, ...args)) : call.apply(this.store, args);
  }

  get(id: string, owner: string) {
    return this.traced('get', this.store.get, id, owner);
  }

  getChain(id: string, owner: string) {
    return this.traced('getChain', this.store.getChain, id, owner);
  }

  getItem(id: string, owner: string) {
    return this.traced('getItem', this.store.getItem, id, owner);
  }

  put(entry: StoredResponse, owner: string, text?: StoredResponseText) {
    return this.traced('put', this.store.put, entry, owner, text);
  }

  /**
   * `putAtOnce` of the store underneath, in the span: a write into the memory store ends its span as it returns,
   * with no promise, no span-ending callback and no turn's callback after it (as an untraced turn's write).
   */
  [PUT_AT_ONCE](entry: StoredResponse, owner: string, text?: StoredResponseText): boolean | Promise<boolean> {
    const start = this.starts.put;
    const scope = startChildSpan(start.name, this.parent, start.attributes);
    if (!scope) return putAtOnce(this.store, entry, owner, text);
    let putting: boolean | Promise<boolean>;
    try {
      putting = within(scope, putAtOnce, undefined, this.store, entry, owner, text);
    } catch (error) {
      endSpan(scope.span, error);
      throw error;
    }
    if (putting instanceof Promise) return ended(scope, putting);
    endSpan(scope.span);
    return putting;
  }

  update(id: string, owner: string, change: (current: StoredResponse) => StoredResponse | undefined) {
    return this.traced('update', this.store.update, id, owner, change);
  }

  delete(id: string, owner: string) {
    return this.traced('delete', this.store.delete, id, owner);
  }
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

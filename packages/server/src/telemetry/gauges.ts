// The operator's gauges (turns and WebSocket connections open, the stores' sizes), read from each live service
// in the process when the metrics are collected (never per turn).
import type { Meter, ObservableResult } from '@opentelemetry/api';

/** Which store a store gauge describes: `responses` (the response store) or `websocket` (connection-local state). */
export const STORE_NAME = 'openresponses.store.name';

/** What the gauges read, from each live service in the process (summed). */
export interface GaugeSource {
  /** Turns running now (HTTP and WebSocket; background turns count in `backgroundTurns`). */
  turnsInFlight(): number;
  backgroundTurns(): number;
  webSocketConnections(): number;
  /** Bytes and entries of each store that counts them (by store name). */
  stores(): ReadonlyArray<{ name: string; bytes: number; entries: number }>;
}

/** Weakly held: a service nobody uses any more leaves the gauges when it is collected. */
const sources = new Set<WeakRef<GaugeSource>>();

/** Adds a service's counters to the gauges; returns what removes them. */
export function observeGauges(source: GaugeSource): () => void {
  const ref = new WeakRef(source);
  sources.add(ref);
  return () => sources.delete(ref);
}

/** Registers the gauges with `meter` (the registered MeterProvider's). */
export function observeGaugesOn(meter: Meter): void {
  const gauge = (name: string, unit: string, description: string, read: (result: ObservableResult) => void) =>
    meter.createObservableUpDownCounter(name, { unit, description }).addCallback(read);
  gauge('openresponses.turns.active', '{turn}', 'Turns running now (HTTP and WebSocket).', (result) =>
    result.observe(sum((source) => source.turnsInFlight())),
  );
  gauge('openresponses.background.active', '{turn}', 'Background turns running in this process.', (result) =>
    result.observe(sum((source) => source.backgroundTurns())),
  );
  gauge('openresponses.websocket.connections', '{connection}', 'Open WebSocket connections.', (result) =>
    result.observe(sum((source) => source.webSocketConnections())),
  );
  const stores = (read: (store: { bytes: number; entries: number }) => number) => (result: ObservableResult) => {
    const totals = new Map<string, number>();
    for (const source of live())
      for (const store of source.stores()) totals.set(store.name, (totals.get(store.name) ?? 0) + read(store));
    for (const [name, value] of totals) result.observe(value, { [STORE_NAME]: name });
  };
  gauge(
    'openresponses.store.size',
    'By',
    'Bytes the in-memory stores hold (their own count).',
    stores((s) => s.bytes),
  );
  gauge(
    'openresponses.store.entries',
    '{response}',
    'Responses the in-memory stores hold.',
    stores((s) => s.entries),
  );
}

function* live(): Generator<GaugeSource> {
  for (const ref of sources) {
    const source = ref.deref();
    if (source) yield source;
    else sources.delete(ref);
  }
}

function sum(read: (source: GaugeSource) => number): number {
  let total = 0;
  for (const source of live()) total += read(source);
  return total;
}

// The server's own aggregation of its histograms and counters: what the metrics SDK's `record` does, without
// hashing the attributes on every value (the SDK sorts and serializes them each time: ~2 µs a value, about a
// tenth of a cheap turn's CPU). A series is found by its attribute set's identity (attribute sets are made
// once, `attributeSet`), else by a canonical key. The Node entry hands the series to the SDK's readers as a
// `MetricProducer` (node/telemetry-sdk.ts), so OTLP and `GET /metrics` see them as the SDK's own.
import type { Attributes } from '@opentelemetry/api';

/** The most series one instrument keeps; values of any further attribute set go to one overflow series (as the SDK does). */
export const MAX_SERIES = 2000;
const OVERFLOW: Attributes = Object.freeze({ 'otel.metric.overflow': true });

/** One series of a histogram (cumulative since `startTime`) or of a counter (`sum` alone). */
export interface SeriesSnapshot {
  readonly attributes: Attributes;
  /** When the series began, ms since the epoch. */
  readonly startTime: number;
  readonly sum: number;
  readonly count: number;
  readonly min: number;
  readonly max: number;
  /** Counts per bucket (one more than the boundaries); empty for a counter. */
  readonly counts: readonly number[];
}

/** An instrument's description and series, as `collect` reads them. */
export interface InstrumentSnapshot {
  readonly kind: 'histogram' | 'counter';
  readonly name: string;
  readonly unit: string;
  readonly description: string;
  /** A histogram's inclusive upper bucket bounds. */
  readonly boundaries: readonly number[];
  readonly series: readonly SeriesSnapshot[];
}

interface Series {
  readonly attributes: Attributes;
  readonly startTime: number;
  sum: number;
  count: number;
  min: number;
  max: number;
  readonly counts: number[];
}

/** A histogram's recorder for one attribute set (`bind`): its series is found once, not per value. */
export interface BoundHistogram {
  record(value: number): void;
}
/** A counter's adder for one attribute set (`bind`). */
export interface BoundCounter {
  add(value: number): void;
}

/** What both instruments share: their series by attribute set. */
class Instrument {
  private readonly byIdentity = new WeakMap<Attributes, Series>();
  private readonly byKey = new Map<string, Series>();
  /**
   * The last two attribute sets recorded and their series: a server records most values under one set again and
   * again, and token usage under two in turn (input, output), which one kept set missed on every value.
   */
  private lastAttributes: Attributes | undefined;
  private lastSeries: Series | undefined;
  private previousAttributes: Attributes | undefined;
  private previousSeries: Series | undefined;

  constructor(
    readonly kind: 'histogram' | 'counter',
    readonly name: string,
    readonly unit: string,
    readonly description: string,
    readonly boundaries: readonly number[],
  ) {}

  /** The series of `attributes` (made at its first value; past `MAX_SERIES` sets, the overflow series). */
  series(attributes: Attributes): Series {
    if (attributes === this.lastAttributes) return this.lastSeries!;
    const known =
      attributes === this.previousAttributes
        ? this.previousSeries!
        : (this.byIdentity.get(attributes) ?? this.seriesByKey(attributes));
    this.previousAttributes = this.lastAttributes;
    this.previousSeries = this.lastSeries;
    this.lastAttributes = attributes;
    this.lastSeries = known;
    return known;
  }

  private seriesByKey(attributes: Attributes): Series {
    let key = canonicalKey(attributes);
    if (!this.byKey.has(key) && this.byKey.size >= MAX_SERIES) key = canonicalKey(OVERFLOW);
    let series = this.byKey.get(key);
    if (series === undefined) {
      series = {
        attributes: key === canonicalKey(OVERFLOW) ? OVERFLOW : Object.freeze({ ...attributes }),
        startTime: Date.now(),
        sum: 0,
        count: 0,
        min: Number.POSITIVE_INFINITY,
        max: Number.NEGATIVE_INFINITY,
        counts: this.kind === 'histogram' ? new Array<number>(this.boundaries.length + 1).fill(0) : [],
      };
      this.byKey.set(key, series);
    }
    this.byIdentity.set(attributes, series);
    return series;
  }

  snapshot(): InstrumentSnapshot {
    const series = [...this.byKey.values()].map((s) => ({ ...s, counts: [...s.counts] }));
    return {
      kind: this.kind,
      name: this.name,
      unit: this.unit,
      description: this.description,
      boundaries: this.boundaries,
      series,
    };
  }
}

/** A histogram with explicit bucket bounds (each an inclusive upper bound, as in OpenTelemetry). */
export class OwnHistogram extends Instrument {
  constructor(name: string, unit: string, description: string, boundaries: readonly number[]) {
    super('histogram', name, unit, description, boundaries);
  }

  /** A value of `attributes` (no hot path records this way: the server's values go through `bind`). */
  record(value: number, attributes: Attributes): void {
    new HistogramBinding(this, attributes).record(value);
  }

  /** The recorder of `attributes`' values, whose series is found at its first value and kept. */
  bind(attributes: Attributes): BoundHistogram {
    return new HistogramBinding(this, attributes);
  }
}

/**
 * One attribute set's values of a histogram: its series found at the first value (a set bound but never recorded
 * makes no series, as before) and kept, so a value costs no lookup. A set's series never changes once found. The
 * value is counted here, not in a function of its own: a turn's records are inlined into the turn's meter, and a
 * call more each was past V8's inlining budget there (~40 instructions a value, callgrind).
 */
class HistogramBinding implements BoundHistogram {
  private found: Series | undefined;
  private readonly bounds: readonly number[];

  constructor(
    private readonly histogram: OwnHistogram,
    private readonly attributes: Attributes,
  ) {
    this.bounds = histogram.boundaries;
  }

  record(value: number): void {
    // As the SDK: a histogram takes no negative values and no NaN.
    if (!(value >= 0)) return;
    const series = (this.found ??= this.histogram.series(this.attributes));
    const bounds = this.bounds;
    series.sum += value;
    series.count++;
    if (value < series.min) series.min = value;
    if (value > series.max) series.max = value;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++;
    series.counts[bucket]!++;
  }
}

/** A monotonic counter. */
export class OwnCounter extends Instrument {
  constructor(name: string, unit: string, description: string) {
    super('counter', name, unit, description, []);
  }

  add(value: number, attributes: Attributes): void {
    if (value >= 0) addInto(this.series(attributes), value);
  }

  /** The adder of `attributes`' values, whose series is found at its first value and kept. */
  bind(attributes: Attributes): BoundCounter {
    return new CounterBinding(this, attributes);
  }
}

/** One attribute set's values of a counter, its series found at the first value and kept (as `HistogramBinding`). */
class CounterBinding implements BoundCounter {
  private found: Series | undefined;

  constructor(
    private readonly counter: OwnCounter,
    private readonly attributes: Attributes,
  ) {}

  add(value: number): void {
    if (value >= 0) addInto((this.found ??= this.counter.series(this.attributes)), value);
  }
}

function addInto(series: Series, value: number): void {
  series.sum += value;
  series.count++;
}

/**
 * The instruments made through one aggregation, and what they hold. An instrument asked for again with the same
 * description (by the instruments of a second MeterProvider: both record into this one aggregation) is the one
 * made first, as the SDK answers a meter's duplicate instrument: one metric family, not two of one name.
 */
export class Aggregation {
  private readonly instruments: Instrument[] = [];

  histogram(name: string, unit: string, description: string, boundaries: readonly number[]): OwnHistogram {
    const known = this.instruments.find(
      (instrument): instrument is OwnHistogram =>
        instrument instanceof OwnHistogram &&
        describes(instrument, name, unit, description) &&
        instrument.boundaries.length === boundaries.length &&
        instrument.boundaries.every((bound, i) => bound === boundaries[i]),
    );
    if (known) return known;
    const made = new OwnHistogram(name, unit, description, boundaries);
    this.instruments.push(made);
    return made;
  }

  counter(name: string, unit: string, description: string): OwnCounter {
    const known = this.instruments.find(
      (instrument): instrument is OwnCounter =>
        instrument instanceof OwnCounter && describes(instrument, name, unit, description),
    );
    if (known) return known;
    const made = new OwnCounter(name, unit, description);
    this.instruments.push(made);
    return made;
  }

  /** Every instrument with at least one series, cumulative. */
  collect(): InstrumentSnapshot[] {
    return this.instruments.map((instrument) => instrument.snapshot()).filter((s) => s.series.length > 0);
  }
}

const describes = (instrument: Instrument, name: string, unit: string, description: string): boolean =>
  instrument.name === name && instrument.unit === unit && instrument.description === description;

/** The process's own aggregation: what the Node entry's metric readers read. */
const processAggregation = new Aggregation();
let recording = false;

/** The own aggregation, for a metric reader (node/own-metrics.ts); it holds values only after `recordOwnMetrics()`. */
export const ownMetrics = (): Pick<Aggregation, 'collect'> => processAggregation;

/**
 * Records histograms and counters into the own aggregation from now on (gauges stay with the SDK, read only when
 * collected). Only when every metric reader of the process reads `ownMetrics()`: the SDK's instruments get no more.
 */
export function recordOwnMetrics(): void {
  recording = true;
}

/** The own aggregation once `recordOwnMetrics()` was called, else undefined (values go to the SDK's instruments). */
export const ownRecording = (): Aggregation | undefined => (recording ? processAggregation : undefined);

/** The attribute set's key, independent of its key order (the SDK's rule: sorted entries). */
function canonicalKey(attributes: Attributes): string {
  return JSON.stringify(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

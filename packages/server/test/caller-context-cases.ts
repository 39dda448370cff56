// The cases of caller-context.test.ts, run in a child process (the W3C propagators of @opentelemetry/core do not
// load in vitest's workers: their ESM build imports the API's, whose imports only bundlers resolve): each line a
// request's headers under one registered propagator, what its `extract` reads of them, what `callerContext`
// reads, and whether the propagator was asked by `callerContext`.
import { createRequire } from 'node:module';
import type * as Api from '@opentelemetry/api';
import type { Context, TextMapGetter, TextMapPropagator } from '@opentelemetry/api';
import type * as Core from '@opentelemetry/core';
import { callerContext } from '../src/telemetry/traceparent.js';

const require = createRequire(import.meta.url);
const { propagation, ROOT_CONTEXT, trace } = require('@opentelemetry/api') as typeof Api;
const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } =
  require('@opentelemetry/core') as typeof Core;

type Headers = Record<string, string>;
const getter: TextMapGetter<Headers> = { get: (carrier, key) => carrier[key], keys: (carrier) => Object.keys(carrier) };

/** What a test compares of an extracted context: the span context (with its tracestate) and the baggage. */
const readOf = (context: Context) => {
  const found = trace.getSpanContext(context);
  return {
    unchanged: context === ROOT_CONTEXT,
    span: found && { ...found, traceState: found.traceState?.serialize() },
    baggage: propagation.getBaggage(context)?.getAllEntries(),
  };
};

/** The W3C composite the SDK registers by default, counting the requests it is asked to read. */
class CountingW3c extends CompositePropagator {
  extracted = 0;
  constructor() {
    super({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
  }
  override extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    this.extracted++;
    return super.extract(context, carrier, getter);
  }
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const traceparents = [
  undefined,
  '',
  `00-${TRACE}-${SPAN}-01`,
  `00-${TRACE}-${SPAN}-00`,
  `00-${TRACE}-${SPAN}-02`,
  `00-${TRACE}-${SPAN}-ff`,
  ` 00-${TRACE}-${SPAN}-01`,
  `00-${TRACE}-${SPAN}-01 `,
  `  00-${TRACE}-${SPAN}-01`,
  `00-${TRACE}-${SPAN}-01-more`,
  `01-${TRACE}-${SPAN}-01-more`,
  `cc-${TRACE}-${SPAN}-09`,
  `ff-${TRACE}-${SPAN}-01`,
  `00-${TRACE.toUpperCase()}-${SPAN}-01`,
  `00-${'0'.repeat(32)}-${SPAN}-01`,
  `00-${TRACE}-${'0'.repeat(16)}-01`,
  `00-${TRACE.slice(1)}-${SPAN}-01`,
  `00-${TRACE}-${SPAN}-1`,
  `00-${TRACE}-${SPAN.replace('a', 'g')}-01`,
  `00_${TRACE}_${SPAN}_01`,
];
const tracestates = [undefined, '', 'vendor=one', 'a=1,b=2'];
const baggages = [undefined, '', 'user.id=ada', 'not baggage'];
const cases: Headers[] = traceparents.flatMap((traceparent) =>
  tracestates.flatMap((tracestate) =>
    baggages.map((baggage) => {
      const headers: Headers = {};
      if (traceparent !== undefined) headers.traceparent = traceparent;
      if (tracestate !== undefined) headers.tracestate = tracestate;
      if (baggage !== undefined) headers.baggage = baggage;
      return headers;
    }),
  ),
);
export const headerOf = (headers: Headers) => (name: string) => headers[name] ?? null;

/** Each request under `propagator`, read both ways; `extracted` counts what the propagator was asked. */
function readAll(name: string, propagator: TextMapPropagator, requests: Headers[], extracted: () => number): void {
  propagation.setGlobalPropagator(propagator);
  // The first read after a registration probes the propagator (w3cExtraction): not one of the requests.
  callerContext(ROOT_CONTEXT, () => null);
  for (const headers of requests) {
    const expected = readOf(propagation.extract(ROOT_CONTEXT, headers, getter));
    const before = extracted();
    const read = readOf(callerContext(ROOT_CONTEXT, headerOf(headers)));
    console.log(JSON.stringify({ name, headers, expected, read, asked: extracted() > before }));
  }
  propagation.disable();
}

const w3c = new CountingW3c();
readAll('w3c', w3c, cases, () => w3c.extracted);

// Values already in the context stay beside the caller's span.
propagation.setGlobalPropagator(new CountingW3c());
const active = propagation.setBaggage(ROOT_CONTEXT, propagation.createBaggage({ tenant: { value: 'acme' } }));
const kept = callerContext(active, headerOf({ traceparent: `00-${TRACE}-${SPAN}-01` }));
console.log(
  JSON.stringify({
    name: 'kept',
    span: trace.getSpanContext(kept),
    tenant: propagation.getBaggage(kept)?.getEntry('tenant')?.value,
  }),
);
propagation.disable();

const fixedCaller = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1, isRemote: true };
// W3C trace context with one more header of its own (as B3 or Jaeger beside W3C would be).
let otherAsked = 0;
const withOther = new CompositePropagator({
  propagators: [
    new W3CTraceContextPropagator(),
    {
      inject: () => {},
      extract: (context, carrier, get) => {
        otherAsked++;
        return get.get(carrier, 'x-caller') ? trace.setSpanContext(context, fixedCaller) : context;
      },
      fields: () => ['x-caller'],
    },
  ],
});
const more = [...cases, { traceparent: `00-${TRACE}-${SPAN}-01`, 'x-caller': '1' }];
readAll('other', withOther, more, () => otherAsked);
// Writes W3C's traceparent, reads nothing (trace-headers.test.ts registers one such).
let writesOnlyAsked = 0;
const writesOnly: TextMapPropagator = {
  inject: (context, carrier, setter) => new W3CTraceContextPropagator().inject(context, carrier, setter),
  extract: (context: Context) => {
    writesOnlyAsked++;
    return context;
  },
  fields: () => ['traceparent'],
};
readAll('writes only', writesOnly, more, () => writesOnlyAsked);

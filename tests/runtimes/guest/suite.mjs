// Runs inside the runtime under test (Node as the reference, Bun, Deno, workerd) on the packed packages:
// the web-standard entry points' exports, Zod validation of good and bad payloads, and a recorded SSE stream decoded,
// checked and accumulated. It only observes; the Node test compares each runtime's observations with
// Node's and asserts the facts that matter.
import { checkStream, createAccumulator, decodeSSE } from '@openresponses/events';
import { createRegistry, defineItem, ExtensionDefinitionError } from '@openresponses/extensions';
import { LATEST_SPEC_VERSION as TYPES_LATEST, SPEC_VERSIONS, STREAMING_EVENT_TYPES } from '@openresponses/types';
import { LATEST_SPEC_VERSION, validate, versions } from '@openresponses/zod';
import { versions as miniVersions } from '@openresponses/zod/mini';
import { z } from 'zod';
import { entries } from './web-entries.mjs';

/** The bytes of `text` as a web stream cut into `size`-byte chunks (so UTF-8 sequences and lines split). */
function chunked(text, size) {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + size));
      offset += size;
    },
  });
}

async function decodeCheckAccumulate(text) {
  const stream = decodeSSE(chunked(text, 7));
  const accumulator = createAccumulator();
  const events = [];
  for await (const event of stream) {
    events.push(event);
    accumulator.push(event);
  }
  const terminal = events.at(-1);
  return {
    events: events.length,
    types: [...new Set(events.map((e) => e.type))],
    sawDone: stream.sawDone,
    violations: checkStream(events, { sawDone: stream.sawDone }).map((v) => v.rule),
    status: accumulator.response?.status ?? null,
    accumulatedEqualsTerminal: JSON.stringify(accumulator.response) === JSON.stringify(terminal?.response),
    finalResponse: terminal?.response ?? null,
  };
}

const outcome = (result) => (result.success ? 'valid' : result.issues.map((i) => `${i.path}: ${i.code}`));

function zodTarget(schemas, goodResponse) {
  const badResponse = { ...goodResponse, status: 42 };
  const badItem = { ...goodResponse, output: [{ type: 'message', role: 'robot' }] };
  const unknownItem = { ...goodResponse, output: [...goodResponse.output, { type: 'acme:thing', id: 'x_1' }] };
  return {
    goodResponse: outcome(validate(schemas.exact.ResponseResourceSchema, goodResponse)),
    badResponse: outcome(validate(schemas.exact.ResponseResourceSchema, badResponse)),
    badItem: outcome(validate(schemas.exact.ResponseResourceSchema, badItem)),
    goodRequest: outcome(validate(schemas.exact.CreateResponseBodySchema, { model: 'm', input: 'Hello' })),
    badRequest: outcome(validate(schemas.exact.CreateResponseBodySchema, { model: 7, input: [{ type: 'nope' }] })),
    unknownItemExact: outcome(validate(schemas.exact.ResponseResourceSchema, unknownItem)),
    unknownItemForward: outcome(validate(schemas.forward.ResponseResourceSchema, unknownItem)),
  };
}

function extensions(goodResponse) {
  const item = defineItem('acme:search_call', { query: z.string() });
  const registry = createRegistry({ items: [item] });
  const withItem = (fields) => ({
    ...goodResponse,
    output: [...goodResponse.output, { type: 'acme:search_call', id: 'sc_1', status: 'completed', ...fields }],
  });
  let badSlug = 'accepted';
  try {
    defineItem('Acme:thing', {});
  } catch (error) {
    badSlug = error instanceof ExtensionDefinitionError ? 'ExtensionDefinitionError' : String(error);
  }
  return {
    vendorItem: registry.schemas.ResponseResource.safeParse(withItem({ query: 'q' })).success,
    brokenVendorItem: registry.schemas.ResponseResource.safeParse(withItem({ query: 42 })).success,
    badSlug,
  };
}

/** `sse` holds recorded streams by name (`good` must be a conforming one). */
export async function runSuite({ sse }) {
  const exportsByEntry = Object.fromEntries(
    Object.entries(entries).map(([name, mod]) => [name, Object.keys(mod).sort()]),
  );
  const streams = {};
  for (const [name, text] of Object.entries(sse)) streams[name] = await decodeCheckAccumulate(text);
  const goodResponse = streams.good.finalResponse;
  for (const stream of Object.values(streams)) delete stream.finalResponse;
  return {
    exports: exportsByEntry,
    types: { versions: SPEC_VERSIONS, latest: TYPES_LATEST, eventTypes: STREAMING_EVENT_TYPES.length },
    zod: {
      classic: zodTarget(versions[LATEST_SPEC_VERSION], goodResponse),
      mini: zodTarget(miniVersions[LATEST_SPEC_VERSION], goodResponse),
    },
    extensions: extensions(goodResponse),
    events: streams,
  };
}

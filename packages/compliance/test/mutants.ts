// Deliberately broken servers: the reference server with one realistic bug each, served on 127.0.0.1. They
// stand in for the third-party servers the suite exists to judge. `npm test` checks that each is caught by the
// tests named in `caughtBy`, with those rule ids; `npm run mutation` runs the whole suite against every one and
// reports the share caught (test/mutation.ts).
import { createServer, type Server } from 'node:http';
import { encodeEvent, SSE_DONE } from '@openresponses/events';
import {
  ConnectionCache,
  createResponsesService,
  generateEncryptionKey,
  InMemoryResponseStore,
  ResponsesError,
  type ResponseStore,
  type StoredResponse,
  type ResponsesServiceOptions,
} from '@openresponses/server';
import { createRunner, type TurnRunner } from '@openresponses/server/testing';
import { LATEST_SPEC_VERSION } from '@openresponses/zod';
import { serveResponsesSocket, toNodeListener } from '@openresponses/server/node';
import { type WebSocket, WebSocketServer } from 'ws';

type Handler = (request: Request) => Promise<Response>;
type Event = Record<string, unknown> & { type: string };
type Json = Record<string, unknown>;

export const MUTANT_API_KEY = 'broken-key';
const MUTANT_TENANT = 'mutant';

/** How one server is broken: its HTTP handler wrapped, its options changed, or its WebSocket loop rewritten. */
interface Breakage {
  http?: (handler: Handler) => Handler;
  service?: Partial<ResponsesServiceOptions>;
  socket?: SocketBreakage;
}

export interface Mutant {
  id: string;
  bug: string;
  /** The tests that catch it, with the rule each reports (checked in npm test; the mutation run uses all tests). */
  caughtBy: Record<string, string>;
  breakage: Breakage;
}

// --- HTTP wrappers ---------------------------------------------------------------------------------------

const isStream = (response: Response) => (response.headers.get('content-type') ?? '').startsWith('text/event-stream');

/** Rewrites the SSE text of streamed answers. */
function rewriteSSE(rewrite: (text: string) => string, headers?: Record<string, string>) {
  return (handler: Handler): Handler =>
    async (request) => {
      const response = await handler(request);
      if (!isStream(response)) return response;
      return new Response(rewrite(await response.text()), {
        status: response.status,
        headers: { ...Object.fromEntries(response.headers), ...headers },
      });
    };
}

/** Rewrites the events (and whether [DONE] is sent) of streamed answers. */
function rewriteEvents(rewrite: (events: Event[]) => Event[], done = true) {
  return rewriteSSE((text) => {
    const events = text
      .split('\n\n')
      .map((block) => /^data: (.*)$/m.exec(block)?.[1])
      .filter((data): data is string => !!data && data !== '[DONE]')
      .map((data) => JSON.parse(data) as Event);
    return rewrite(events).map(encodeEvent).join('') + (done ? SSE_DONE : '');
  });
}

/** Rewrites JSON request bodies before the reference handler sees them. */
function rewriteRequest(rewrite: (body: Json, handler: Handler, request: Request) => Json | Promise<Json>) {
  return (handler: Handler): Handler =>
    async (request) => {
      if (request.method !== 'POST' || !(request.headers.get('content-type') ?? '').includes('json'))
        return handler(request);
      const body = await rewrite((await request.json()) as Json, handler, request);
      return handler(
        new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(body) }),
      );
    };
}

/** Rewrites JSON answers. */
function rewriteJSON(rewrite: (body: Json, request: Request, status: number) => Json) {
  return (handler: Handler): Handler =>
    async (request) => {
      const response = await handler(request.clone());
      if (isStream(response) || !(response.headers.get('content-type') ?? '').includes('json')) return response;
      const body = rewrite((await response.json()) as Json, request, response.status);
      return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
    };
}

const compose =
  (...wrappers: Array<(handler: Handler) => Handler>) =>
  (handler: Handler) =>
    wrappers.reduceRight((inner, wrap) => wrap(inner), handler);

const renumber = (events: Event[]) => events.map((e, i) => ({ ...e, sequence_number: i }));
const items = (e: Event): Json[] => [
  ...(e.item ? [e.item as Json] : []),
  ...(((e.response as Json | undefined)?.output as Json[] | undefined) ?? []),
];
/** Applies `change` to every item in output_item events and in the terminal response. */
const everyItem = (change: (item: Json, event: Event) => void) => (events: Event[]) =>
  events.map((e) => {
    const copy = structuredClone(e);
    if (e.type === 'response.output_item.done' || /^response\.(completed|incomplete|failed)$/.test(e.type))
      for (const item of items(copy)) change(item, copy);
    return copy;
  });

const get = async (handler: Handler, request: Request, path: string) =>
  (await (
    await handler(new Request(new URL(path, request.url), { headers: request.headers }))
  ) // same key
    .json()) as Json;

// --- WebSocket breakages ---------------------------------------------------------------------------------

export interface SocketBreakage {
  /** Runs turns as they arrive instead of one at a time. */
  concurrent?: boolean;
  /** Keeps the previous response after a failed continuation. */
  noEviction?: boolean;
  /** Drops `stream` and `background` instead of refusing them. */
  acceptForbidden?: boolean;
  /** One cache for all connections: store: false responses outlive their socket. */
  sharedCache?: boolean;
  /** Error envelopes without `status`. */
  envelopeWithoutStatus?: boolean;
  /** The code sent at the connection limit. */
  limitCode?: string;
  /** Turns function_call_output items into user messages, so orphans pass. */
  acceptOrphans?: boolean;
  /** Sends events without sequence_number. */
  stripSequenceNumbers?: boolean;
  /** Drops a previous_response_id it cannot find instead of failing. */
  ignoreUnknownPrevious?: boolean;
}

/** A WebSocket loop written the naive way, with the breakages asked for. */
function brokenSocket(
  socket: WebSocket,
  runner: TurnRunner,
  flags: SocketBreakage,
  shared: ConnectionCache,
  limitMs: number,
) {
  const local = flags.sharedCache ? shared : new ConnectionCache(runner.store);
  let queue = Promise.resolve();
  const send = (message: unknown) => {
    if (socket.readyState !== socket.OPEN) return;
    const { sequence_number: _dropped, ...rest } = message as Json;
    socket.send(JSON.stringify(flags.stripSequenceNumbers ? rest : message));
  };
  const sendError = (error: ResponsesError) =>
    send({
      type: 'error',
      ...(flags.envelopeWithoutStatus ? {} : { status: error.status }),
      error: { type: error.type, code: error.code, message: error.message, param: error.param },
    });
  const limit = setTimeout(() => {
    queue = queue.then(() => {
      sendError(
        new ResponsesError(
          'invalid_request',
          flags.limitCode ?? 'websocket_connection_limit_reached',
          'Connection limit reached.',
        ),
      );
      socket.close(1000);
    });
  }, limitMs);
  socket.on('close', () => clearTimeout(limit));
  const handle = async (text: string) => {
    const message = JSON.parse(text) as Json;
    if (flags.acceptForbidden) {
      delete message.stream;
      delete message.background;
    }
    if (flags.acceptOrphans && Array.isArray(message.input))
      message.input = message.input.map((item: Json) =>
        item.type === 'function_call_output' ? { type: 'message', role: 'user', content: String(item.output) } : item,
      );
    const owner = MUTANT_TENANT;
    if (
      flags.ignoreUnknownPrevious &&
      typeof message.previous_response_id === 'string' &&
      !(await local.get(message.previous_response_id, owner))
    )
      delete message.previous_response_id;
    const previous = message.previous_response_id;
    try {
      const result = await runner.turn(message, {
        version: LATEST_SPEC_VERSION,
        owner,
        store: local,
        onEvent: send,
        schema: 'WebSocketResponseCreateEventSchema',
      });
      await local.remember({ response: result.response, input: result.input }, owner);
    } catch (error) {
      if (!flags.noEviction && typeof previous === 'string') await local.forget(previous, owner);
      sendError(
        error instanceof ResponsesError ? error : new ResponsesError('server_error', 'internal_error', String(error)),
      );
    }
  };
  socket.on('message', (data) => {
    if (flags.concurrent) void handle(String(data));
    else queue = queue.then(() => handle(String(data)));
  });
}

// --- The mutants -----------------------------------------------------------------------------------------

export const MUTANTS: Mutant[] = [
  // Existing six: events out of order, repeated numbers, no [DONE], a swallowed error, lost state, tools.
  {
    id: 'wrong-order',
    bug: 'announces each output item one event too late',
    caughtBy: { streaming: 'item-not-added', 'tool-calling': 'item-not-added' },
    breakage: {
      http: rewriteEvents((events) => {
        const out = [...events];
        for (let i = 0; i < out.length - 1; i++)
          if (out[i]!.type === 'response.output_item.added') {
            [out[i], out[i + 1]] = [out[i + 1]!, out[i]!];
            i++;
          }
        return renumber(out);
      }),
    },
  },
  {
    id: 'repeated-sequence-numbers',
    bug: 'every event has sequence_number 0',
    caughtBy: { streaming: 'sequence-number-order' },
    breakage: { http: rewriteEvents((events) => events.map((e) => ({ ...e, sequence_number: 0 }))) },
  },
  {
    id: 'missing-done',
    bug: 'never sends data: [DONE]',
    caughtBy: { streaming: 'missing-done' },
    breakage: { http: rewriteEvents((events) => events, false) },
  },
  {
    id: 'swallowed-error',
    bug: 'turns a failure into an empty success',
    caughtBy: { 'stream-error-then-failed': 'error-then-failed' },
    breakage: {
      http: rewriteEvents((events) => {
        const failed = events.findIndex((e) => e.type === 'response.failed');
        if (failed < 0) return events;
        const kept = events.filter((e) => e.type !== 'error' && e.type !== 'response.failed');
        const response = { ...(events[failed]!.response as Json), status: 'completed', error: null };
        return renumber([...kept, { type: 'response.completed', response }]);
      }),
    },
  },
  {
    id: 'forgets-previous-response',
    bug: 'ignores previous_response_id',
    caughtBy: { 'previous-response-id': 'previous-response', 'previous-output-in-context': 'previous-output' },
    breakage: {
      http: rewriteRequest(({ previous_response_id: _ignored, ...rest }) => rest),
    },
  },
  {
    id: 'ignores-allowed-tools',
    bug: 'treats allowed_tools as plain auto',
    caughtBy: { 'allowed-tools': 'allowed-tools' },
    breakage: {
      http: rewriteRequest((body) =>
        (body.tool_choice as Json | undefined)?.type === 'allowed_tools' ? { ...body, tool_choice: 'auto' } : body,
      ),
    },
  },
  // SSE framing and content types.
  {
    id: 'event-name-mismatch',
    bug: 'the event: line of text deltas differs from the JSON type',
    caughtBy: { streaming: 'sse-event-name' },
    breakage: {
      http: rewriteSSE((text) => text.replace(/^event: response\.output_text\.delta$/gm, 'event: response.text.delta')),
    },
  },
  {
    id: 'data-only-events',
    bug: 'sends data: lines without event: lines',
    caughtBy: { streaming: 'sse-event-name' },
    breakage: { http: rewriteSSE((text) => text.replace(/^event: .*\n/gm, '')) },
  },
  {
    id: 'sse-id-field',
    bug: 'numbers SSE events with id: lines',
    caughtBy: { streaming: 'sse-id-field' },
    breakage: {
      http: rewriteSSE((text) => {
        let n = 0;
        return text.replace(/^event: /gm, () => `id: ${n++}\nevent: `);
      }),
    },
  },
  {
    id: 'sse-invalid-json',
    bug: 'writes event data as JavaScript object literals, not JSON',
    caughtBy: { streaming: 'sse-invalid-json' },
    breakage: { http: rewriteSSE((text) => text.replace(/^data: \{"type"/gm, 'data: {type')) },
  },
  {
    id: 'stream-as-json-content-type',
    bug: 'streams with content-type application/json',
    caughtBy: { streaming: 'content-type' },
    breakage: { http: rewriteSSE((text) => text, { 'content-type': 'application/json' }) },
  },
  {
    id: 'json-as-text-plain',
    bug: 'sends JSON answers as text/plain',
    caughtBy: { 'basic-text-response': 'content-type', 'error-400-param': 'content-type' },
    breakage: {
      http: (handler) => async (request) => {
        const response = await handler(request);
        if (isStream(response)) return response;
        return new Response(await response.text(), {
          status: response.status,
          headers: { 'content-type': 'text/plain; charset=utf-8' },
        });
      },
    },
  },
  // Stream semantics.
  {
    id: 'item-id-changes',
    bug: 'an item id changes between output_item.added and output_item.done',
    caughtBy: { streaming: 'item-id-changed' },
    breakage: {
      http: rewriteEvents(
        everyItem((item) => {
          item.id = `${String(item.id)}_v2`;
        }),
      ),
    },
  },
  {
    id: 'completed-inside-incomplete',
    bug: 'items of an incomplete response are marked completed',
    caughtBy: { 'max-output-tokens-incomplete': 'incomplete-item-status' },
    breakage: {
      http: rewriteEvents(
        everyItem((item) => {
          if (item.status === 'incomplete') item.status = 'completed';
        }),
      ),
    },
  },
  {
    id: 'sequence-gaps',
    bug: 'sequence_number counts in twos',
    caughtBy: { streaming: 'sequence-number-gap' },
    breakage: { http: rewriteEvents((events) => events.map((e, i) => ({ ...e, sequence_number: i * 2 }))) },
  },
  {
    id: 'output-index-stuck',
    bug: 'output_index stays 0 with several items',
    caughtBy: { 'multi-item-stream': 'output-index-contiguous', 'reasoning-stream': 'output-index-contiguous' },
    breakage: {
      http: rewriteEvents((events) => events.map((e) => ('output_index' in e ? { ...e, output_index: 0 } : e))),
    },
  },
  {
    id: 'summary-done-differs',
    bug: 'the reasoning summary .done text differs from its deltas',
    caughtBy: { 'reasoning-stream': 'delta-sum' },
    breakage: {
      http: rewriteEvents((events) =>
        events.map((e) =>
          e.type === 'response.reasoning_summary_text.done' ? { ...e, text: `${String(e.text)} (edited)` } : e,
        ),
      ),
    },
  },
  {
    id: 'refusal-done-differs',
    bug: 'the refusal .done text differs from its deltas',
    caughtBy: { 'refusal-stream': 'delta-sum' },
    breakage: {
      http: rewriteEvents((events) =>
        events.map((e) => (e.type === 'response.refusal.done' ? { ...e, refusal: 'No.' } : e)),
      ),
    },
  },
  {
    id: 'refusal-as-text',
    bug: 'passes the model’s refusal on as ordinary output_text',
    caughtBy: { 'refusal-stream': 'refusal' },
    breakage: {
      http: rewriteEvents((events) => {
        const asText = (part: Json) =>
          part.type === 'refusal' ? { type: 'output_text', text: part.refusal, annotations: [], logprobs: [] } : part;
        const inItem = (item: Json) =>
          Array.isArray(item.content) ? { ...item, content: item.content.map(asText) } : item;
        return events.map((e) => {
          if (e.type === 'response.refusal.delta') return { ...e, type: 'response.output_text.delta', logprobs: [] };
          if (e.type === 'response.refusal.done') {
            const { refusal, ...rest } = e;
            return { ...rest, type: 'response.output_text.done', text: refusal, logprobs: [] };
          }
          if (e.part) return { ...e, part: asText(e.part as Json) };
          if (e.item) return { ...e, item: inItem(e.item as Json) };
          if (e.response && Array.isArray((e.response as Json).output))
            return {
              ...e,
              response: { ...(e.response as Json), output: ((e.response as Json).output as Json[]).map(inItem) },
            };
          return e;
        });
      }),
    },
  },
  {
    id: 'text-done-differs',
    bug: 'the output_text .done text differs from its deltas',
    caughtBy: { streaming: 'delta-sum' },
    breakage: {
      http: rewriteEvents((events) =>
        events.map((e) => (e.type === 'response.output_text.done' ? { ...e, text: `${String(e.text)}!` } : e)),
      ),
    },
  },
  {
    id: 'terminal-output-differs',
    bug: 'the terminal response holds other output than was streamed',
    caughtBy: { streaming: 'terminal-output-mismatch' },
    breakage: {
      http: rewriteEvents((events) =>
        events.map((e) =>
          e.type === 'response.completed' ? { ...e, response: { ...(e.response as Json), output: [] } } : e,
        ),
      ),
    },
  },
  {
    id: 'missing-terminal',
    bug: 'ends the stream without a terminal event',
    caughtBy: { streaming: 'missing-terminal' },
    breakage: { http: rewriteEvents((events) => events.filter((e) => e.type !== 'response.completed')) },
  },
  {
    id: 'failed-error-null',
    bug: 'response.failed carries error: null',
    caughtBy: { 'stream-error-then-failed': 'failed-error' },
    breakage: {
      http: rewriteEvents((events) =>
        events.map((e) =>
          e.type === 'response.failed' ? { ...e, response: { ...(e.response as Json), error: null } } : e,
        ),
      ),
    },
  },
  {
    id: 'no-in-progress',
    bug: 'never sends response.in_progress',
    caughtBy: { streaming: 'in-progress-missing' },
    breakage: { http: rewriteEvents((events) => renumber(events.filter((e) => e.type !== 'response.in_progress'))) },
  },
  {
    id: 'unprefixed-vendor-event',
    bug: 'sends its own event type without a slug prefix',
    caughtBy: { streaming: 'unknown-event-type' },
    breakage: {
      http: rewriteEvents((events) => renumber([...events.slice(0, 2), { type: 'trace_event' }, ...events.slice(2)])),
    },
  },
  {
    id: 'item-status-missing',
    bug: 'reasoning and compaction items carry no status',
    caughtBy: { 'reasoning-stream': 'item-status', compaction: 'item-status' },
    breakage: {
      http: compose(
        rewriteEvents(
          everyItem((item) => {
            if (item.type === 'reasoning') delete item.status;
          }),
        ),
        rewriteJSON((body) =>
          Array.isArray(body.output)
            ? {
                ...body,
                output: body.output.map((item: Json) => {
                  if (item.type !== 'reasoning' && item.type !== 'compaction') return item;
                  const { status: _dropped, ...rest } = item;
                  return rest;
                }),
              }
            : body,
        ),
      ),
    },
  },
  {
    id: 'reasoning-ignored',
    bug: 'does not pass the reasoning setting on to the model',
    caughtBy: { 'reasoning-stream': 'reasoning', 'reasoning-setting-echoed': 'reasoning' },
    breakage: { http: rewriteRequest(({ reasoning: _dropped, ...rest }) => rest) },
  },
  {
    id: 'openai-event-names',
    bug: 'streams raw reasoning as response.reasoning_text.* (OpenAI’s names, not the spec’s)',
    caughtBy: { 'reasoning-stream': 'unknown-event-type' },
    breakage: { service: { compatibility: 'openai' } },
  },
  // Context and state.
  {
    id: 'drops-previous-output',
    bug: 'loads the previous input but not the previous output',
    caughtBy: { 'previous-output-in-context': 'previous-output' },
    breakage: {
      service: {
        store: (() => {
          const inner = new InMemoryResponseStore();
          const withoutOutput = (stored: StoredResponse) => ({
            ...stored,
            response: { ...stored.response, output: [] },
          });
          // The context loader reads chains here; GET /responses/{id} reads too, so retrieval shows the loss as well.
          const store: ResponseStore = {
            get: async (id, owner) => {
              const stored = await inner.get(id, owner);
              return stored && withoutOutput(stored);
            },
            getChain: async (id, owner) => {
              const found = await inner.getChain(id, owner);
              return { ...found, chain: found.chain.map(withoutOutput) };
            },
            getItem: (id, owner) => inner.getItem(id, owner),
            put: (entry, owner) => inner.put(entry, owner),
            update: (id, owner, change) => inner.update(id, owner, change),
            delete: (id, owner) => inner.delete(id, owner),
          };
          return store;
        })(),
      },
    },
  },
  {
    id: 'context-order-swapped',
    bug: 'puts the new input before the previous turn in the context',
    caughtBy: { 'context-order': 'context-order' },
    breakage: {
      http: rewriteRequest(async (body, handler, request) => {
        const id = body.previous_response_id;
        if (typeof id !== 'string') return body;
        const previous = await get(handler, request, `/v1/responses/${id}`);
        if (!previous.output) return body;
        const previousInput = (await get(handler, request, `/v1/responses/${id}/input_items`)).data as Json[];
        const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
        const { previous_response_id: _moved, ...rest } = body;
        return { ...rest, input: [...(input as Json[]), ...previousInput, ...(previous.output as Json[])] };
      }),
    },
  },
  {
    id: 'carries-instructions-over',
    bug: 'a continuation inherits the previous instructions',
    caughtBy: {
      'instructions-not-carried-over': 'instructions-carried-over',
      'instructions-not-carried-over-answer': 'instructions-carried-over',
    },
    breakage: {
      http: rewriteRequest(async (body, handler, request) => {
        if (typeof body.previous_response_id !== 'string' || body.instructions) return body;
        const previous = await get(handler, request, `/v1/responses/${body.previous_response_id}`);
        return previous.instructions ? { ...body, instructions: previous.instructions } : body;
      }),
    },
  },
  {
    id: 'accepts-orphan-tool-output',
    bug: 'answers a function_call_output that matches no call (as a user message)',
    caughtBy: { 'orphan-tool-output': 'orphan-tool-output' },
    breakage: {
      http: rewriteRequest((body) =>
        Array.isArray(body.input)
          ? {
              ...body,
              input: body.input.map((item: Json) =>
                item.type === 'function_call_output'
                  ? { type: 'message', role: 'user', content: String(item.output) }
                  : item,
              ),
            }
          : body,
      ),
    },
  },
  {
    id: 'store-false-stored',
    bug: 'stores store: false responses (and echoes store: false)',
    caughtBy: { 'store-false-not-retrievable': 'store-false' },
    breakage: {
      http: compose(
        rewriteRequest((body) =>
          body.store === false ? { ...body, store: true, metadata: { was: 'unstored' } } : body,
        ),
        rewriteJSON((body) =>
          (body.metadata as Json | undefined)?.was === 'unstored' ? { ...body, store: false, metadata: {} } : body,
        ),
      ),
    },
  },
  {
    id: 'retrieve-different-ids',
    bug: 'GET /responses/{id} returns items with other ids',
    caughtBy: { 'retrieve-stored-response': 'retrieve' },
    breakage: {
      http: rewriteJSON((body, request) =>
        request.method === 'GET' && Array.isArray(body.output)
          ? { ...body, output: body.output.map((item: Json) => ({ ...item, id: `${String(item.id)}x` })) }
          : body,
      ),
    },
  },
  {
    id: 'tool-choice-none-ignored',
    bug: 'treats tool_choice none as auto',
    caughtBy: { 'tool-choice-none': 'tool-choice' },
    breakage: {
      http: rewriteRequest((body) => (body.tool_choice === 'none' ? { ...body, tool_choice: 'auto' } : body)),
    },
  },
  {
    id: 'error-without-param',
    bug: '400 errors never name their param',
    caughtBy: { 'error-400-param': 'error-param', 'include-invalid': 'error-param' },
    breakage: {
      http: rewriteJSON((body, _request, status) =>
        status === 400 ? { error: { ...(body.error as Json), param: null } } : body,
      ),
    },
  },
  {
    id: 'truncation-disabled-truncates',
    bug: 'truncation "disabled" silently truncates',
    caughtBy: { 'truncation-disabled': 'truncation' },
    breakage: {
      http: compose(
        rewriteRequest((body) =>
          body.truncation === 'auto' ? body : { ...body, truncation: 'auto', metadata: { t: 'd' } },
        ),
        rewriteJSON((body) =>
          (body.metadata as Json | undefined)?.t === 'd' ? { ...body, truncation: 'disabled', metadata: {} } : body,
        ),
      ),
    },
  },
  {
    id: 'truncation-auto-refuses',
    bug: 'truncation "auto" fails like "disabled"',
    caughtBy: { 'truncation-auto': 'status' },
    breakage: {
      http: rewriteRequest((body) => (body.truncation === 'auto' ? { ...body, truncation: 'disabled' } : body)),
    },
  },
  // include and encrypted content.
  {
    id: 'include-ignored-encrypted-content',
    bug: 'always sends reasoning encrypted_content',
    caughtBy: { 'reasoning-stream': 'include' },
    breakage: {
      http: rewriteRequest((body) => ({
        ...body,
        include: [...new Set([...((body.include as string[] | undefined) ?? []), 'reasoning.encrypted_content'])],
      })),
    },
  },
  {
    id: 'include-ignored-logprobs',
    bug: 'ignores include message.output_text.logprobs',
    caughtBy: { 'include-logprobs': 'include' },
    breakage: {
      http: rewriteRequest((body) =>
        Array.isArray(body.include)
          ? { ...body, include: body.include.filter((v) => v !== 'message.output_text.logprobs') }
          : body,
      ),
    },
  },
  {
    id: 'include-unknown-accepted',
    bug: 'accepts include values the spec does not define',
    caughtBy: { 'include-invalid': 'include' },
    breakage: {
      http: rewriteRequest((body) =>
        Array.isArray(body.include)
          ? {
              ...body,
              include: body.include.filter((v) =>
                ['reasoning.encrypted_content', 'message.output_text.logprobs'].includes(v),
              ),
            }
          : body,
      ),
    },
  },
  {
    id: 'encrypted-content-unchecked',
    bug: 'accepts any encrypted_content sent back',
    caughtBy: {
      'include-reasoning-encrypted-content': 'encrypted-content',
      'encrypted-content-garbage': 'encrypted-content',
    },
    breakage: {
      http: rewriteRequest((body) =>
        Array.isArray(body.input)
          ? {
              ...body,
              input: body.input.map((item: Json) => {
                if (item.type !== 'reasoning') return item;
                const { encrypted_content: _unchecked, ...rest } = item;
                return rest;
              }),
            }
          : body,
      ),
    },
  },
  // Errors, authentication, echoes and tolerance: bugs any server can have, whatever its model.
  {
    id: 'invalid-request-as-500',
    bug: 'answers invalid requests with 500',
    caughtBy: { 'error-400-param': 'error-400' },
    breakage: {
      http: (handler) => async (request) => {
        const response = await handler(request);
        return response.status === 400
          ? new Response(response.body, { status: 500, headers: response.headers })
          : response;
      },
    },
  },
  {
    id: 'error-body-flat',
    bug: 'errors are { message } without the spec error object',
    caughtBy: { 'error-400-param': 'error-shape' },
    breakage: {
      http: rewriteJSON((body, _request, status) =>
        status >= 400 ? { message: (body.error as Json | undefined)?.message ?? 'error' } : body,
      ),
    },
  },
  {
    id: 'auth-403',
    bug: 'a wrong API key is a 403',
    caughtBy: { 'error-401': 'error-401' },
    breakage: {
      http: (handler) => async (request) => {
        const response = await handler(request);
        return response.status === 401
          ? new Response(response.body, { status: 403, headers: response.headers })
          : response;
      },
    },
  },
  {
    id: 'previous-not-found-generic-code',
    bug: 'an unknown previous_response_id is code not_found',
    caughtBy: { 'error-404-previous-response': 'error-404' },
    breakage: {
      http: rewriteJSON((body) =>
        (body.error as Json | undefined)?.code === 'previous_response_not_found'
          ? { error: { ...(body.error as Json), code: 'not_found' } }
          : body,
      ),
    },
  },
  {
    id: 'unknown-fields-rejected',
    bug: 'rejects request fields it does not know',
    caughtBy: { 'unknown-fields-tolerated': 'status' },
    breakage: {
      http: rewriteRequest((body) =>
        Object.keys(body).some((k) => k.startsWith('zz_')) ? { ...body, temperature: 'x' } : body,
      ),
    },
  },
  {
    id: 'instructions-not-echoed',
    bug: 'the response echoes no instructions',
    caughtBy: { 'system-prompt': 'instructions' },
    breakage: { http: rewriteJSON((body) => (body.object === 'response' ? { ...body, instructions: null } : body)) },
  },
  {
    id: 'image-input-rejected',
    bug: 'rejects input_image parts',
    caughtBy: { 'image-input': 'status' },
    breakage: {
      http: rewriteRequest((body) =>
        JSON.stringify(body.input ?? '').includes('input_image') ? { ...body, input: 42 } : body,
      ),
    },
  },
  {
    id: 'phase-rejected',
    bug: 'rejects assistant messages that carry phase',
    caughtBy: { 'assistant-phase-history': 'status' },
    breakage: {
      http: rewriteRequest((body) =>
        JSON.stringify(body.input ?? '').includes('"phase"') ? { ...body, input: 42 } : body,
      ),
    },
  },
  {
    id: 'compaction-wrong-object',
    bug: 'compaction answers with object "response"',
    caughtBy: { compaction: 'compaction' },
    breakage: {
      http: rewriteJSON((body) => (body.object === 'response.compaction' ? { ...body, object: 'response' } : body)),
    },
  },
  {
    id: 'ws-events-without-sequence-number',
    bug: 'WebSocket events carry no sequence_number',
    caughtBy: { 'ws-single-turn': 'sequence-number-missing' },
    breakage: { socket: { stripSequenceNumbers: true } },
  },
  {
    id: 'ws-unknown-previous-accepted',
    bug: 'an unknown previous_response_id on WebSocket starts a fresh chain',
    caughtBy: { 'ws-previous-not-found': 'websocket-error' },
    breakage: { socket: { ignoreUnknownPrevious: true } },
  },
  // WebSocket.
  {
    id: 'ws-concurrent-turns',
    bug: 'runs WebSocket turns concurrently',
    caughtBy: { 'ws-one-in-flight': 'ws-one-in-flight' },
    breakage: { socket: { concurrent: true } },
  },
  {
    id: 'ws-no-eviction',
    bug: 'keeps the previous response after a failed continuation',
    caughtBy: {
      'ws-eviction-after-failure': 'websocket-eviction',
      'ws-orphan-tool-output-evicts': 'websocket-eviction',
    },
    breakage: { socket: { noEviction: true } },
  },
  {
    id: 'ws-accepts-forbidden-fields',
    bug: 'accepts stream and background on WebSocket',
    caughtBy: { 'ws-forbidden-fields': 'ws-forbidden-fields' },
    breakage: { socket: { acceptForbidden: true } },
  },
  {
    id: 'ws-shared-cache',
    bug: 'store: false responses outlive their connection',
    caughtBy: { 'ws-store-false-reconnect': 'ws-store-false' },
    breakage: { socket: { sharedCache: true } },
  },
  {
    id: 'ws-envelope-without-status',
    bug: 'WebSocket error envelopes carry no status',
    caughtBy: { 'ws-previous-not-found': 'ws-error-envelope' },
    breakage: { socket: { envelopeWithoutStatus: true } },
  },
  {
    id: 'ws-limit-wrong-code',
    bug: 'the connection limit is reported with another code',
    caughtBy: { 'ws-connection-limit': 'ws-connection-limit' },
    breakage: { socket: { limitCode: 'connection_expired' } },
  },
  {
    id: 'ws-accepts-orphan-tool-output',
    bug: 'answers orphan function_call_output over WebSocket',
    caughtBy: { 'ws-orphan-tool-output-evicts': 'orphan-tool-output' },
    breakage: { socket: { acceptOrphans: true } },
  },
];

export interface ServedServer {
  baseURL: string;
  close(): Promise<void>;
}

/** Serves the reference server (no mutant) or a mutant, HTTP and WebSocket, on 127.0.0.1. */
export async function serve(mutant?: Mutant, options: { connectionLimitMs?: number } = {}): Promise<ServedServer> {
  // The service serves HTTP; a broken WebSocket loop drives a turn runner with the same options and store.
  const serviceOptions: ResponsesServiceOptions = {
    apiKeys: [MUTANT_API_KEY],
    tenants: { [MUTANT_API_KEY]: MUTANT_TENANT },
    store: new InMemoryResponseStore(),
    encryptionKeys: [generateEncryptionKey()],
    ...mutant?.breakage.service,
  };
  const service = createResponsesService(serviceOptions);
  const runner = createRunner(serviceOptions);
  const handler = mutant?.breakage.http ? mutant.breakage.http(service.fetch) : service.fetch;
  const server: Server = createServer(toNodeListener(handler));
  const sockets = new WebSocketServer({ server, path: '/v1/responses' });
  const shared = new ConnectionCache(runner.store);
  const limitMs = options.connectionLimitMs ?? 3_600_000;
  sockets.on('connection', (socket, request) => {
    if (mutant?.breakage.socket) brokenSocket(socket, runner, mutant.breakage.socket, shared, limitMs);
    else serveResponsesSocket(socket, request, service, { connectionLimitMs: limitMs });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

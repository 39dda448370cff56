// The service's instrumentation, put together at the composition root: a server span per HTTP request
// (the outermost answer stage) and per WebSocket turn, a GenAI span per turn around the turn runner (whose store
// calls and upstream calls are its children: stores/store-spans.ts, models/upstream-call.ts). Each is a
// no-op costing a span check until an OpenTelemetry SDK is registered; prompts and completions are recorded
// only with `captureMessageContent`.
import type { Span } from '@opentelemetry/api';
import type { ItemField, ResponseResource } from '@openresponses/types';
import {
  type ServiceEventStream,
  type StreamEndWatcher,
  WrappedStream,
  watchStreamEnd,
  withBody,
} from '../exchange.js';
import type { AnswerStage, Middleware } from '../handler/middleware.js';
import type { ModelProvider } from '../models/provider.js';
import type { TurnNotes, TurnOptions, TurnOutcome, TurnRunner } from '../responses/runner.js';
import { asResponsesError, type ResponsesError } from '../errors.js';
import { errorText, printable, redactSecretShapes } from '../redaction.js';
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_URL_PATH,
  AttributeSets,
  httpServerStart,
  type ServerStart,
  type TurnFacts,
  type TurnFailure,
} from '../telemetry/attributes.js';
import {
  endServerSpan,
  endSpan,
  endTurnSpan,
  type SpanScope,
  turnTracedUnder,
  startServerSpan,
  startTurnSpan,
  within,
} from '../telemetry/tracing.js';
import { errorTypeOf } from '../telemetry/failures.js';
import { contextManaged } from '../telemetry/span-scope.js';
import { turnOptionsWith } from './tenant-turns.js';

/** What the service's telemetry records beyond names and numbers. */
export interface TelemetryOptions {
  /**
   * Records prompts and completions on each turn's span (`gen_ai.system_instructions`,
   * `gen_ai.input.messages`, `gen_ai.output.messages`, as JSON). Off by default: content is never recorded
   * unless this is on (the CLI sets it from `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`).
   */
  captureMessageContent?: boolean;
}

/**
 * The outermost answer stage: one server span per request, ended when the answer (or its whole stream) has been
 * written. A stage, not a middleware: it starts and ends the span in the frame the other stages share, with no
 * promise and callbacks of its own per request; that frame runs the inner chain with the span current for an
 * application's context manager. The span's name and attributes are looked up only for a span that is started.
 */
export function serverSpans(): AnswerStage {
  return SERVER_SPANS;
}

const SERVER_SPANS: AnswerStage = {
  before(request) {
    const scope = startServerSpan(request.header, httpServerStart, request.method, request.path);
    if (!scope) return;
    request.traceContext = scope.context;
    // A span the sampler dropped records nothing and needs no end: the request only carries its trace on.
    if (scope.span.isRecording()) request.serverScope = scope;
  },
  answered(request, response) {
    const scope = request.serverScope;
    if (scope === undefined) return response;
    const body = response.body;
    if (body === null || typeof body === 'string') {
      endServerSpan(scope.span, request.method, response.status, request.route);
      return response;
    }
    const end = new ServerSpanEnd(scope.span, request, response.status);
    if (!contextManaged()) return watchStreamEnd(response, body, end);
    const inScope = new StreamInScope(body, scope);
    return watchStreamEnd(withBody(response, inScope), inScope, end);
  },
  thrown(request, error) {
    const scope = request.serverScope;
    if (scope !== undefined) endServerSpan(scope.span, request.method, 500, request.route, error);
  },
};

/** Ends a streamed answer's server span as its stream ends (told by the stream's frame: no frame of its own). */
class ServerSpanEnd implements StreamEndWatcher {
  constructor(
    private readonly span: Span,
    private readonly request: Parameters<Middleware>[0],
    private readonly status: number,
  ) {}

  streamEnded(error: unknown): void {
    endServerSpan(this.span, this.request.method, this.status, this.request.route, error);
  }
}

/** An answer's stream written with its server span current, for an application's context manager. */
class StreamInScope extends WrappedStream {
  constructor(
    body: ServiceEventStream,
    private readonly scope: SpanScope,
  ) {
    super(body);
  }

  protected override written(...args: Parameters<ServiceEventStream['pipe']>): Promise<void> {
    return within(this.scope, this.body.pipe, this.body, ...args);
  }
}

/**
 * The turns of one WebSocket connection, each in a server span (`response.create`, a child of the
 * upgrade request's `traceparent`), with the runner's GenAI span inside.
 */
export function websocketTurns(runner: TurnRunner, header: (name: string) => string | null, path: string): TurnRunner {
  return Object.assign({}, runner, {
    turn: (raw: unknown, options: TurnOptions) => {
      const scope = startServerSpan(header, websocketStart, 'response.create', path);
      if (!scope) return runner.turn(raw, options);
      return within(scope, () => runner.turn(raw, Object.assign({}, options, { traceContext: scope.context }))).then(
        (outcome) => {
          endSpan(scope.span, outcome.error);
          return outcome;
        },
        (error: unknown) => {
          endSpan(scope.span, error);
          throw error;
        },
      );
    },
  });
}

/** A WebSocket turn's server span by name and the connection's path, made once per path. */
const websocketStart = (name: string, path: string): ServerStart =>
  websocketStarts.get(name, path, undefined, undefined, websocketStartMade);
const websocketStarts = new AttributeSets<ServerStart>();
const websocketStartMade = (name: string, path: string): ServerStart => ({
  name,
  attributes: Object.freeze({
    [ATTR_URL_PATH]: path,
    [ATTR_HTTP_ROUTE]: path,
    [ATTR_NETWORK_PROTOCOL_NAME]: 'websocket',
  }),
});

/**
 * The first provider that serves `model`, as `providers.find` answers: a loop rather than a closure made per traced
 * turn (with the context it captures, an allocation each).
 */
function providerFor(providers: readonly ModelProvider[], model: string): ModelProvider | undefined {
  for (let i = 0; i < providers.length; i++) if (providers[i]!.supports(model)) return providers[i];
  return undefined;
}

/** `gen_ai.provider.name` of a provider: its own `genAiProvider`, else its name. */
export const genAiProviderOf = (provider: ModelProvider): string => provider.genAiProvider ?? provider.name;

/**
 * What the runner notes in a turn's `TurnFacts` as it ends, for the request log and metrics: the response's
 * model, id and usage, and a failure, once for every family and transport (only when it failed). A traced turn's
 * span (`instrumentRunner`) is ended here too, in the callbacks the runner's end takes anyway, not by promise
 * callbacks of its own; its failure's words are recorded on it only with content capture on.
 */
export function turnNotes(providers: readonly ModelProvider[], telemetry: TelemetryOptions = {}): TurnNotes {
  const capture = telemetry.captureMessageContent === true;
  return {
    ended(facts, outcome) {
      noteOutcome(facts, outcome.response);
      if (outcome.response.status === 'failed' && outcome.error)
        facts.failure = failureOf(outcome.error, facts.requestModel, providers);
      const span = takeTurnSpan(facts);
      if (span === undefined) return;
      if (capture && span.isRecording()) {
        // The output set between the finish reasons and what `endTurnSpan` sets (the attributes' order kept).
        span.setAttribute(ATTR_GEN_AI_RESPONSE_FINISH_REASONS, finishReasonsOf(outcome.response));
        span.setAttribute(ATTR_GEN_AI_OUTPUT_MESSAGES, JSON.stringify(outputMessages(outcome)));
        endTurnSpan(span, facts);
      } else endTurnSpan(span, facts, undefined, undefined, finishReasonsOf(outcome.response));
    },
    failed(facts, error) {
      facts.errorType ??= errorTypeOf(error);
      facts.failure = failureOf(asResponsesError(error), facts.requestModel, providers);
      failTurnSpan(facts, error, capture);
    },
  };
}

/**
 * Ends a traced turn's span (when `facts` holds one) as failed with `error`; the failure's words on it only with
 * content capture on (they may quote the prompt or the completion).
 */
function failTurnSpan(facts: TurnFacts, error: unknown, capture: boolean): void {
  const span = takeTurnSpan(facts);
  if (span === undefined) return;
  endTurnSpan(span, facts, error, capture ? printable(errorText(error), 2000) : undefined);
}

/** A traced turn's span, taken from its facts once (whoever ends it first, no one ends it twice). */
function takeTurnSpan(facts: SpannedFacts): Span | undefined {
  const span = facts.turnSpan;
  // Written only when there was one: an untraced turn's facts keep their shape.
  if (span !== undefined) facts.turnSpan = undefined;
  return span;
}

/** A traced turn's facts: its span until the runner notes the turn's end (`turnNotes` ends it). */
interface SpannedFacts extends TurnFacts {
  turnSpan?: Span;
}

/**
 * The turn runner with a GenAI span per turn (a child of `options.traceContext`, the request's span; the
 * runner makes the provider's upstream call and the store calls its children) and the requested model noted
 * in `options.facts` (the runner, made with `turnNotes`, notes how the turn ended and ends its span).
 */
export function instrumentRunner(
  runner: TurnRunner,
  settings: { providers: readonly ModelProvider[]; defaultModel: string } & TelemetryOptions,
): TurnRunner {
  const capture = settings.captureMessageContent === true;
  // Not an async function: while nothing is registered a turn costs no extra promise.
  const begin: TurnRunner['begin'] = (raw, options, watched) => {
    // Under a sampled-out request nothing is recorded: the untraced way (its context still reaches the upstream).
    const traced = turnTracedUnder(options.traceContext);
    const facts = options.facts;
    // Nothing to note and nothing to record: the runner itself.
    if (!traced && !facts) return runner.begin(raw, options, watched);
    const asked = (raw as { model?: unknown } | null)?.model;
    const requestModel = typeof asked === 'string' ? asked : settings.defaultModel;
    if (traced) return tracedTurn(raw, options, watched, facts ?? {}, requestModel);
    facts!.requestModel = requestModel;
    return runner.begin(raw, options, watched);
  };
  const tracedTurn = (
    raw: unknown,
    options: TurnOptions,
    watched: boolean,
    facts: TurnFacts,
    requestModel: string,
  ): ReturnType<TurnRunner['begin']> => {
    facts.requestModel = requestModel;
    const previous = (raw as { previous_response_id?: unknown } | null)?.previous_response_id;
    if (typeof previous === 'string') facts.previousResponseId = previous;
    const provider = providerFor(settings.providers, requestModel);
    if (provider) facts.provider = genAiProviderOf(provider);
    const scope = startTurnSpan(facts, watched, options.traceContext);
    // The runner notes the turn's end in `facts` (made here when the transport brought none) before the span reads them.
    const inTurn =
      scope || facts !== options.facts
        ? turnOptionsWith(options, options.ended, scope ? scope.context : options.traceContext, facts)
        : options;
    if (!scope) return runner.begin(raw, inTurn, watched);
    // The runner's notes (`turnNotes`) end the span as the turn ends, begun or not: no promise of its own.
    (facts as SpannedFacts).turnSpan = scope.span;
    let begun: ReturnType<TurnRunner['begin']>;
    try {
      begun = within(scope, runner.begin, runner, raw, inTurn, watched);
    } catch (error) {
      // Thrown before a promise was made (as an async runner would not): nothing noted it, so the span ends here.
      failTurnSpan(facts, error, capture);
      return Promise.reject(error);
    }
    if (!capture && !contextManaged()) return begun;
    // The request's content recorded, or the turn run with its span current for an application's context manager.
    return begun.then((run): RunTurn => {
      if (capture && scope.span.isRecording()) recordInput(scope, raw);
      return (onEvent, backpressure) => promisedWithin(scope, run, undefined, onEvent, backpressure);
    });
  };
  return Object.assign({}, runner, {
    begin,
    turn: async (raw: unknown, options: TurnOptions) =>
      (await begin(raw, options, options.onEvent !== undefined))(options.onEvent),
  });
}

type RunTurn = Awaited<ReturnType<TurnRunner['begin']>>;

/**
 * `within(scope, run, self, ...args)`'s promise, or a rejected one when `run` throws before making one (as an
 * async function would); the function and its arguments, not a closure, as `within` takes them.
 */
function promisedWithin<A extends unknown[], T>(
  scope: SpanScope,
  run: (...args: A) => Promise<T>,
  self: unknown,
  ...args: A
): Promise<T> {
  try {
    return within(scope, run, self, ...args);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * A turn's failure for the request log: the spec error the client was given, its message through the
 * redactor of the provider that serves `model` (which knows that upstream's key), else the common secret
 * shapes, whole and before any cut. Made only when a turn failed.
 */
function failureOf(error: ResponsesError, model: string | undefined, providers: readonly ModelProvider[]): TurnFailure {
  const provider = model === undefined ? undefined : providerFor(providers, model);
  const message = provider?.redact ? provider.redact(error.message) : redactSecretShapes(error.message);
  return { type: error.type, code: error.code, status: error.status, message, provider: provider?.name };
}

/** The model, id, usage and failure of a turn's response. */
function noteOutcome(facts: TurnFacts, response: ResponseResource): void {
  facts.responseModel = response.model;
  facts.responseId = response.id;
  const usage = response.usage as { input_tokens?: number; output_tokens?: number } | null | undefined;
  if (typeof usage?.input_tokens === 'number') facts.inputTokens = usage.input_tokens;
  if (typeof usage?.output_tokens === 'number') facts.outputTokens = usage.output_tokens;
  if (response.status === 'failed')
    facts.errorType = (response.error as { code?: string } | null | undefined)?.code ?? 'failed';
}

/** `gen_ai.response.finish_reasons` of a response, the usual ones made once (an attribute value is never written to). */
function finishReasonsOf(response: ResponseResource): string[] {
  const reason = finishReasonOf(response);
  return FINISH_REASONS.get(reason) ?? [reason];
}
const FINISH_REASONS = new Map(
  ['stop', 'tool_calls', 'length', 'error'].map((reason) => [reason, Object.freeze([reason]) as string[]]),
);

/** The finish reason of a response: stop, tool_calls, length, content_filter, error. */
function finishReasonOf(response: ResponseResource): string {
  if (response.status === 'failed') return 'error';
  if (response.status === 'incomplete') {
    const reason = (response.incomplete_details as { reason?: string } | null | undefined)?.reason;
    return reason === 'max_output_tokens' ? 'length' : (reason ?? 'incomplete');
  }
  const output = response.output;
  for (let i = 0; i < output.length; i++) if (output[i]!.type === 'function_call') return 'tool_calls';
  return 'stop';
}

type MessagePart = Record<string, unknown>;
type Message = { role: string; parts: MessagePart[]; finish_reason?: string };

/** The request's instructions and input as the GenAI conventions' message shapes (only with capture on). */
function recordInput(scope: SpanScope, raw: unknown): void {
  const body = (raw ?? {}) as { instructions?: unknown; input?: unknown };
  if (typeof body.instructions === 'string')
    scope.span.setAttribute(
      ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
      JSON.stringify([{ type: 'text', content: body.instructions }]),
    );
  const input =
    typeof body.input === 'string'
      ? [{ role: 'user', parts: [{ type: 'text', content: body.input }] }]
      : Array.isArray(body.input)
        ? (body.input as ItemField[]).map(messageOf)
        : [];
  scope.span.setAttribute(ATTR_GEN_AI_INPUT_MESSAGES, JSON.stringify(input));
}

function outputMessages(outcome: TurnOutcome): Message[] {
  const parts = outcome.response.output.flatMap((item) => messageOf(item).parts);
  return [{ role: 'assistant', parts, finish_reason: finishReasonOf(outcome.response) }];
}

/** One item as a conventions message: text parts, tool calls and their results, other items by type. */
function messageOf(item: ItemField): Message {
  const record = item as Record<string, unknown>;
  if (record.type === 'function_call')
    return {
      role: 'assistant',
      parts: [{ type: 'tool_call', id: record.call_id, name: record.name, arguments: record.arguments }],
    };
  if (record.type === 'function_call_output')
    return { role: 'tool', parts: [{ type: 'tool_call_response', id: record.call_id, response: record.output }] };
  const content = record.content;
  const parts =
    typeof content === 'string'
      ? [{ type: 'text', content }]
      : Array.isArray(content)
        ? (content as Array<Record<string, unknown>>).map((part) =>
            typeof part.text === 'string'
              ? { type: 'text', content: part.text }
              : typeof part.refusal === 'string'
                ? { type: 'text', content: part.refusal }
                : { type: String(part.type) },
          )
        : [{ type: String(record.type) }];
  return { role: typeof record.role === 'string' ? record.role : 'assistant', parts };
}

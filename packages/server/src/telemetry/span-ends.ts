// The ends of the spans ./tracing.ts starts: each kind's attributes after its start (a span in its fixed shape,
// ./own-spans.ts, takes them in one call), its failure, its end.
import { type Span, SpanStatusCode } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  AttributeSets,
  httpSpanName,
  reportedName,
  type TurnFacts,
} from './attributes.js';
import { errorTypeOf, recordFailure } from './failures.js';
import { hasFixedFields } from './own-spans.js';

/** A server span's name by method and route (`{method} {route}`), made once. */
const routeNames = new AttributeSets<{ readonly name: string }>();
const routeNameOf = (method: string, route: string) => ({ name: `${httpSpanName(method)} ${route}` });

/** Ends a server span: `{method} {route}` as its name, the status (5xx an error, as the HTTP conventions say for servers). */
export function endServerSpan(
  span: Span,
  method: string,
  status: number,
  route: string | undefined,
  error?: unknown,
): void {
  if (span.isRecording()) {
    if (route !== undefined) span.updateName(routeNames.get(method, route, undefined, undefined, routeNameOf).name);
    // The shape's fields in one call (./own-spans.ts' SERVER_SHAPE: the route, the status).
    if (hasFixedFields(span)) span.setFields(route, status);
    else {
      if (route !== undefined) span.setAttribute(ATTR_HTTP_ROUTE, route);
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    }
    if (error !== undefined) recordFailure(span, error);
    if (status >= 500 || error !== undefined) {
      span.setAttribute(ATTR_ERROR_TYPE, error === undefined ? String(status) : errorTypeOf(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}

/** Ends a span, marking it failed with `error.type` when `error` is given. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined && span.isRecording()) {
    recordFailure(span, error);
    span.setAttribute(ATTR_ERROR_TYPE, errorTypeOf(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * Ends a turn's span with what the turn told (`facts`) after its `finishReasons` (when given), an error when it
 * failed; `exceptionMessage` is the failure's words, given only when content capture is on (see `recordFailure`).
 */
export function endTurnSpan(
  span: Span,
  facts: TurnFacts,
  error?: unknown,
  exceptionMessage?: string,
  finishReasons?: string[],
): void {
  if (span.isRecording()) {
    const model = facts.responseModel === undefined ? undefined : reportedName(facts.responseModel);
    const id = facts.responseId === undefined ? undefined : reportedName(facts.responseId);
    // The shape's fields in one call (./own-spans.ts' TURN_SHAPE: the finish reasons, model, id and usage).
    if (hasFixedFields(span)) span.setFields(finishReasons, model, id, facts.inputTokens, facts.outputTokens);
    else {
      if (finishReasons !== undefined) span.setAttribute(ATTR_GEN_AI_RESPONSE_FINISH_REASONS, finishReasons);
      if (model !== undefined) span.setAttribute(ATTR_GEN_AI_RESPONSE_MODEL, model);
      if (id !== undefined) span.setAttribute(ATTR_GEN_AI_RESPONSE_ID, id);
      if (facts.inputTokens !== undefined) span.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, facts.inputTokens);
      if (facts.outputTokens !== undefined) span.setAttribute(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, facts.outputTokens);
    }
    if (error !== undefined) recordFailure(span, error, exceptionMessage);
    const errorType = facts.errorType ?? (error === undefined ? undefined : errorTypeOf(error));
    if (errorType !== undefined) {
      span.setAttribute(ATTR_ERROR_TYPE, reportedName(errorType));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}

/** Ends an upstream call's span: its status (4xx and 5xx errors, as the conventions say for clients) or the error. */
export function endClientSpan(span: Span, status: number | undefined, error?: unknown): void {
  if (span.isRecording()) {
    if (status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    if (error !== undefined) {
      endSpan(span, error);
      return;
    }
    if (status !== undefined && status >= 400) {
      span.setAttribute(ATTR_ERROR_TYPE, String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}

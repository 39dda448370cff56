// The metrics of an answered request: `http.server.request.duration` of every request and
// `openresponses.server.overhead.duration` of a turn's, by method, route template and status.
import type { Attributes } from '@opentelemetry/api';
import type { BoundHistogram } from './aggregation.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  AttributeSets,
  httpMethodOf,
} from './attributes.js';
import type { Instruments } from './metrics.js';

/**
 * The attributes of one answered request's `http.server.request.duration` and a turn's overhead (method, status,
 * route template; `route` absent for unknown paths), made once per combination.
 */
export const httpRequestAttributes = (method: string, route: string | undefined, status: number): Attributes => {
  return httpSets.get(httpMethodOf(method), route, status, undefined, httpAttributesOf);
};
const httpSets = new AttributeSets();
const httpAttributesOf = (known: string, route: string | undefined, status: number): Attributes => {
  const set: Attributes = { [ATTR_HTTP_REQUEST_METHOD]: known, [ATTR_HTTP_RESPONSE_STATUS_CODE]: status };
  if (route !== undefined) set[ATTR_HTTP_ROUTE] = route;
  if (status >= 500) set[ATTR_ERROR_TYPE] = String(status);
  return set;
};

/** An answer's histograms, bound to its attributes (`httpRequestAttributes`). */
export interface AnswerSeries {
  /** `http.server.request.duration`. */
  readonly duration: BoundHistogram;
  /** `openresponses.server.overhead.duration`. */
  readonly overhead: BoundHistogram;
}

/** The histograms of an answer by method, route and status (as `httpRequestAttributes`), bound at the first such answer. */
export const answerSeries = (
  meters: Instruments,
  method: string,
  route: string | undefined,
  status: number,
): AnswerSeries => {
  // `meters` as a part (the same for every lookup in its own sets): a maker made once, not a closure per lookup.
  return meters.bound.answers.get(httpMethodOf(method), route, status, meters, answerSeriesMade);
};
const answerSeriesMade = (
  known: string,
  route: string | undefined,
  status: number,
  meters: Instruments,
): AnswerSeries => {
  const attributes = httpRequestAttributes(known, route, status);
  return {
    duration: meters.httpServerRequestDuration.bind(attributes),
    overhead: meters.overheadDuration.bind(attributes),
  };
};

/** What `runSuite` takes: the server to test and how. */
export interface SuiteConfig {
  /** The API root, e.g. `http://127.0.0.1:8080/v1`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** The model every test asks for. */
  model: string;
  /** Only these test ids (or id prefixes). */
  filter?: string[];
  /** Which transports to test (default both). */
  transports?: Array<'http' | 'websocket'>;
  /** Skip tests that need the model to cooperate (recall, following forced prompts), for servers fronting real LLMs. */
  skipModelDependent?: boolean;
  /** A WebSocket implementation for WebSocket tests (the `ws` package on Node 20). */
  WebSocket?: {
    /** Opens a connection to `url`, sending `options.headers` (the API key) where the implementation can. */
    new (url: string, options?: { headers?: Record<string, string> }): unknown;
  };
  /** A prompt that makes the model fail, to test stream failures (default: the reference model's `[fail]` trigger). */
  failurePrompt?: string;
  /** A prompt that makes the model write more than max_output_tokens allows (default: the reference model's `[long]`). */
  longPrompt?: string;
  /** A prompt that makes the model refuse (default: the reference model's `[refuse]`). */
  refusalPrompt?: string;
  /** A prompt whose answer takes a while to stream, for WebSocket ordering (default: the reference model's `[slow]`). */
  slowPrompt?: string;
  /** Words of input that overflow the model's context window, for `truncation` (default 140000, over the reference's 128k). */
  contextOverflowWords?: number;
  /** The server's WebSocket connection limit in ms, when short enough to wait for (otherwise that test is skipped). */
  webSocketConnectionLimitMs?: number;
  /** Called with each test's result as it finishes. */
  onProgress?: (result: TestResult) => void;
  /** Keep each test's requests and answers in its result (`exchanges`), for the HTML report. */
  recordExchanges?: boolean;
}

/** One request a test sent and what came back: an HTTP request, or a WebSocket connection's messages. */
export interface Exchange {
  /** An HTTP request, or one WebSocket connection with its messages. */
  kind: 'http' | 'websocket';
  /** The HTTP method (`GET` for a WebSocket upgrade). */
  method: string;
  /** The path under the base URL (HTTP) or the WebSocket URL. */
  url: string;
  /** The request body (HTTP), or the messages sent, one per line (WebSocket). */
  requestBody?: string;
  /** The HTTP status (101 once a WebSocket opened). */
  status?: number;
  /** The answer's headers. */
  responseHeaders?: Record<string, string>;
  /** The response body or SSE stream as received (HTTP), or the messages received, one per line (WebSocket). */
  responseBody?: string;
  /** Why there was no answer (a connection error). */
  error?: string;
}

/** Why a test failed. */
export interface Failure {
  /** A stream rule id from @openresponses/events, or the test's own check (`status`, `schema`, `recall`, …). */
  rule: string;
  /** What was seen, naming the values involved. */
  message: string;
}

/** One test's verdict. */
export interface TestResult {
  /** The test's stable id (`streaming`, `ws-continuation`, …). */
  id: string;
  /** What the test checks. */
  description: string;
  /** The transport it ran on. */
  transport: 'http' | 'websocket';
  /** The verdict. */
  status: 'pass' | 'fail' | 'skip';
  /** How long it took, in ms. */
  ms: number;
  /** The first failure, when it failed. */
  failure?: Failure;
  /** Why it was skipped, when it was. */
  skipReason?: string;
  /** What the test sent and received (with `recordExchanges`). */
  exchanges?: Exchange[];
}

/** What `runSuite` returns. */
export interface SuiteReport {
  /** The server tested. */
  baseURL: string;
  /** Every test's result, in suite order. */
  results: TestResult[];
  /** How many passed, failed and were skipped. */
  summary: {
    /** Tests that passed. */
    passed: number;
    /** Tests that failed. */
    failed: number;
    /** Tests skipped (model-dependent ones, or those the server's settings rule out). */
    skipped: number;
  };
}

/** Thrown by a test to fail with a rule id. */
export class CheckFailed extends Error {
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown by a test that cannot run against this server. */
export class Skip extends Error {}

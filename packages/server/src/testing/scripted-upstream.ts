// The scripted upstream of the provider contract: an HTTP server on 127.0.0.1 that answers each call with the
// next answer of a script written in family-neutral terms (text, tool calls, reasoning, a cut, a status, …),
// rendered in a family's own wire format by its `WireFamily` (conformance-families.ts), and keeps what it
// received. provider-conformance.ts runs the contract against it.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelProvider } from '../models/provider.js';

/** What the model says on one upstream call, whatever the wire format. */
export type ScriptedAnswer =
  | {
      /** Text. */
      kind: 'text';
      /** The text deltas streamed, in order. */
      deltas: string[];
    }
  | {
      /** Reasoning (with an opaque token the family must carry, such as a signature) before text or tool calls. */
      kind: 'reasoning';
      /** The reasoning text. */
      reasoning: string;
      /** The token the family must carry back on the next turn (a signature, an encrypted blob). */
      opaque: string;
      /** The text deltas streamed after the reasoning. */
      deltas?: string[];
      /** The function calls made after the reasoning, in order. */
      calls?: ScriptedCall[];
    }
  | {
      /** Function calls. */
      kind: 'tool-calls';
      /** The function calls made, in order. */
      calls: ScriptedCall[];
    }
  | {
      /** Stopped by the output token limit after these deltas. */
      kind: 'length';
      /** The text deltas streamed before the stop. */
      deltas: string[];
    }
  | {
      /** An HTTP failure with the family's error body. */
      kind: 'status';
      /** The HTTP status answered. */
      status: 400 | 401 | 429 | 500 | 503;
      /** The `Retry-After` header sent with it. */
      retryAfter?: string;
    }
  | {
      /** The family's mid-stream error after these deltas. */
      kind: 'error-midstream';
      /** The text deltas streamed before the error. */
      deltas: string[];
    }
  | {
      /** The connection dropped after these deltas. */
      kind: 'cut';
      /** The text deltas streamed before the drop. */
      deltas: string[];
    }
  | {
      /** These deltas, then the stream stays open until the gateway goes away. */
      kind: 'hold';
      /** The text deltas streamed before holding. */
      deltas: string[];
    };

/** A function call a scripted answer makes. */
export interface ScriptedCall {
  /** The call id. */
  id: string;
  /** The function's name. */
  name: string;
  /** The JSON arguments. */
  arguments: string;
}

/** A family's wire answer: a status, headers, and either SSE events (each a whole `event:`/`data:` block) or one JSON body. */
export interface WireAnswer {
  /** The HTTP status. */
  status: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** SSE events, each a whole block. */
  events?: string[];
  /** A JSON body. */
  json?: unknown;
  /** After the events, drop the connection (`cut`) or keep it open (`hold`); default: end it. */
  after?: 'cut' | 'hold';
}

/** How one provider family is put under the suite. */
export interface WireFamily {
  /** The family's name, in test titles. */
  name: string;
  /** The family's provider, calling the scripted upstream at `rootUrl` (`http://127.0.0.1:<port>`, no path) with `apiKey`. */
  provider(rootUrl: string, apiKey: string): ModelProvider;
  /** `answer` in the family's wire format, for this request (streamed when it asks to be; Gemini asks by `path`). */
  render(answer: ScriptedAnswer, request: Pick<ScriptedRequest, 'body' | 'headers' | 'path'>): WireAnswer;
  /** Tool results a received request carries, by call id. */
  toolResults(body: Record<string, unknown>): Array<{
    /** The call answered. */
    callId: string;
    /** The tool's output. */
    output: string;
  }>;
  /**
   * Opaque reasoning tokens a received request sends back (in order), for a family whose upstream takes
   * reasoning back; leave it out for one that cannot (the suite then checks only that nothing fails).
   */
  reasoningSentBack?(body: Record<string, unknown>): string[];
}

/** A request the scripted upstream received. */
export interface ScriptedRequest {
  /** The request path. */
  path: string;
  /** Its headers. */
  headers: IncomingHttpHeaders;
  /** Its JSON body. */
  body: Record<string, unknown>;
  /** Whether the gateway went away before the answer ended. */
  aborted: boolean;
}

/** A running scripted upstream, from `startScriptedUpstream`. */
export interface ScriptedUpstream {
  /** `http://127.0.0.1:<port>`. */
  rootUrl: string;
  /** Every request received, in order. */
  received: ScriptedRequest[];
  /** Answers for the next calls, in order (a call past the script is a 500). */
  script(...answers: ScriptedAnswer[]): void;
  /** Stops it. */
  close(): Promise<void>;
}

/** A scripted upstream speaking `family`'s wire format. `GET …/models` answers 404 (families list none from it here). */
export async function startScriptedUpstream(family: WireFamily): Promise<ScriptedUpstream> {
  const queue: ScriptedAnswer[] = [];
  const received: ScriptedRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const record: ScriptedRequest = {
      path: req.url ?? '',
      headers: req.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      aborted: false,
    };
    res.on('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    received.push(record);
    const next = queue.shift();
    if (!next) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"no scripted answer"}}');
      return;
    }
    const wire = family.render(next, record);
    if (wire.json !== undefined || !wire.events) {
      res
        .writeHead(wire.status, { 'content-type': 'application/json', ...wire.headers })
        .end(JSON.stringify(wire.json));
      return;
    }
    res.writeHead(wire.status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...wire.headers });
    for (const event of wire.events) res.write(event);
    if (wire.after === 'cut') {
      // Let what was written reach the gateway, then drop the connection without ending the response.
      setTimeout(() => res.destroy(), 30);
      return;
    }
    if (wire.after === 'hold') return;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    rootUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    script: (...answers) => void queue.push(...answers),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

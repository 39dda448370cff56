// The outgoing stream check a test server runs on everything it streams, as middleware: each SSE answer is
// decoded as it is written (the bytes the client gets) and checked while it streams: `/v1/responses`
// streams with the events package's stream checker (for the spec version the request negotiated, to the
// end: one terminal event, then [DONE]), legacy `/v1/chat/completions` streams chunk by chunk against the
// Chat Completions wire schema. A stream whose client went away is checked up to where it was cut.
import { createSSEFrameDecoder, createStreamChecker, type SSEFrame, type StreamChecker } from '@openresponses/events';
import type { Registry } from '@openresponses/extensions';
import { SPEC_VERSIONS, type SpecVersion } from '@openresponses/zod';
import type { Middleware } from '../src/handler/middleware.js';
import { chunkSchema } from '../src/models/chat-completions/wire.js';

/** What broke, one line per problem (`POST /v1/responses: [sequence-number-gap] …`), since the last take. */
const broken: string[] = [];

export function takeBrokenStreams(): string[] {
  return broken.splice(0);
}

/**
 * `lenient`: the server renames events to OpenAI's peer names (`compatibility: 'openai'`), reported as
 * warnings only; `registry`: the server's vendor registry (its checker knows the registered items and events).
 */
export function checkServedStreams(options: { lenient?: boolean; registry?: Registry } = {}): Middleware {
  return async (request, next) => {
    const response = await next(request);
    const body = response.body;
    if (body === null || typeof body === 'string') return response;
    if (!(response.headers['content-type'] ?? '').startsWith('text/event-stream')) return response;
    const where = `${request.method} ${request.path}`;
    const check = request.path.endsWith('/chat/completions')
      ? chatChunks()
      : responsesEvents(checkerFor(request.header('openresponses-version'), options));
    const report = (problems: string[]) => {
      for (const problem of problems) {
        broken.push(`${where}: ${problem}`);
        console.error(`served stream broke the spec: ${where}: ${problem}`);
      }
    };
    return {
      ...response,
      body: {
        pipe: async (write, backpressure) => {
          const decoder = createSSEFrameDecoder();
          const encoder = new TextEncoder();
          let sawDone = false;
          const onFrame = (frame: SSEFrame) => {
            if (frame.data === '[DONE]') {
              if (sawDone) report(['[DONE] twice']);
              sawDone = true;
            } else if (sawDone) report([`a frame after [DONE]: ${frame.data.slice(0, 80)}`]);
            else report(check.push(frame));
            return undefined;
          };
          await body.pipe((chunk) => {
            write(chunk);
            decoder.feed(typeof chunk === 'string' ? encoder.encode(chunk) : chunk, onFrame);
          }, backpressure);
          decoder.end();
          // A stream its client left is cut short by design; what was written up to the cut was checked.
          if (!request.cancellation?.cancelled) report(check.end(sawDone));
        },
      },
    };
  };
}

interface FrameCheck {
  push(frame: SSEFrame): string[];
  end(sawDone: boolean): string[];
}

function versionOf(header: string | null): SpecVersion | undefined {
  return SPEC_VERSIONS.find((version) => version === header?.trim());
}

const errorsOf = (violations: ReadonlyArray<{ rule: string; message: string; severity: string }>) =>
  violations.filter((v) => v.severity === 'error').map((v) => `[${v.rule}] ${v.message}`);

function checkerFor(header: string | null, options: { lenient?: boolean; registry?: Registry }): StreamChecker {
  const profile = options.lenient ? { profile: 'lenient' as const } : {};
  // A registry serves its own spec version.
  if (options.registry) return options.registry.createStreamChecker(profile);
  const specVersion = versionOf(header);
  return createStreamChecker(Object.assign({}, specVersion ? { specVersion } : {}, profile));
}

function responsesEvents(checker: StreamChecker): FrameCheck {
  return {
    push(frame) {
      let event: { type?: unknown };
      try {
        event = JSON.parse(frame.data) as { type?: unknown };
      } catch {
        return [`a frame that is not JSON: ${frame.data.slice(0, 80)}`];
      }
      const problems = errorsOf(checker.push(event));
      if (frame.event !== undefined && frame.event !== event.type)
        problems.push(`the frame's event name '${frame.event}' is not its data's type '${String(event.type)}'`);
      return problems;
    },
    end: (sawDone) => errorsOf(checker.end({ sawDone })),
  };
}

function chatChunks(): FrameCheck {
  let failed = false;
  return {
    push(frame) {
      let chunk: { object?: unknown; error?: unknown };
      try {
        chunk = JSON.parse(frame.data) as typeof chunk;
      } catch {
        return [`a frame that is not JSON: ${frame.data.slice(0, 80)}`];
      }
      if (failed) return ['a chunk after the error chunk'];
      if (chunk.error !== undefined) {
        failed = true;
        const error = chunk.error as { message?: unknown; type?: unknown };
        return typeof error?.message === 'string' && typeof error.type === 'string'
          ? []
          : [`an error chunk without a message and type: ${frame.data.slice(0, 80)}`];
      }
      const parsed = chunkSchema.safeParse(chunk);
      if (!parsed.success) return [`a chunk that breaks the wire schema: ${parsed.error.issues[0]?.message}`];
      return chunk.object === 'chat.completion.chunk' ? [] : [`a chunk whose object is ${String(chunk.object)}`];
    },
    end: (sawDone) => (sawDone ? [] : ['the stream ended without data: [DONE]']),
  };
}

// The provider contract as tests: a scripted upstream on 127.0.0.1 answers each call with the next answer
// of a script written in family-neutral terms (text, tool calls, reasoning, a cut, a status, …), rendered
// in the family's own wire format by its `WireFamily`; the suite runs the family's provider behind the real
// server and checks what a client sees and what the upstream received. Every family passes it: Chat
// Completions, Anthropic Messages and Gemini do (see conformance-families.ts).
import { checkStream, decodeSSE, type AnyStreamingEvent } from '@openresponses/events';
import type { ModelProvider } from '../models/provider.js';
import type { TestFramework } from './framework.js';
import { type ScriptedUpstream, startScriptedUpstream, type WireFamily } from './scripted-upstream.js';

/** What `describeProviderConformance` takes besides the family. */
export interface ProviderConformanceOptions {
  /** Starts the real server with these providers; the suite closes it. */
  serve(providers: ModelProvider[]): Promise<{
    /** The server's base URL. */
    url: string;
    /** A key it accepts. */
    apiKey: string;
    /** Stops it. */
    close(): Promise<void>;
  }>;
}

const weather = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};

/** Registers the provider contract's tests for one family, with your test framework's `describe`, `test` and `expect`. */
export function describeProviderConformance(
  family: WireFamily,
  options: ProviderConformanceOptions,
  { describe, test, expect }: TestFramework,
): void {
  const MODEL = 'conformance-model';
  const UPSTREAM_KEY = 'sk-conformance-upstream-5e1d';
  /** Runs `body` against a fresh scripted upstream and server. */
  const withGateway =
    (
      body: (gateway: {
        upstream: ScriptedUpstream;
        post(request: Record<string, unknown>, signal?: AbortSignal): Promise<Response>;
        json(request: Record<string, unknown>): Promise<Record<string, unknown>>;
        stream(
          request: Record<string, unknown>,
        ): Promise<{ events: AnyStreamingEvent[]; violations: unknown[]; final: Record<string, unknown> }>;
      }) => Promise<void>,
    ) =>
    async () => {
      const upstream = await startScriptedUpstream(family);
      const server = await options.serve([family.provider(upstream.rootUrl, UPSTREAM_KEY)]);
      const post = (request: Record<string, unknown>, signal?: AbortSignal) =>
        fetch(`${server.url}/v1/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${server.apiKey}` },
          body: JSON.stringify({ model: MODEL, ...request }),
          signal,
        });
      try {
        await body({
          upstream,
          post,
          json: async (request) => (await (await post(request)).json()) as Record<string, unknown>,
          stream: async (request) => {
            const response = await post({ ...request, stream: true });
            const decoded = decodeSSE(response.body!);
            const events: AnyStreamingEvent[] = [];
            for await (const event of decoded) events.push(event);
            const violations = checkStream(events, { sawDone: decoded.sawDone });
            const final = (events.at(-1) as unknown as { response?: Record<string, unknown> }).response ?? {};
            return { events, violations, final };
          },
        });
      } finally {
        await server.close();
        await upstream.close();
      }
    };
  type Output = Array<{ type: string; [key: string]: unknown }>;

  describe(`provider conformance: ${family.name}`, () => {
    test(
      'text: a JSON turn answers the scripted text, completed',
      withGateway(async ({ upstream, json }) => {
        upstream.script({ kind: 'text', deltas: ['Hel', 'lo', ' there'] });
        const response = await json({ input: 'Hi' });
        expect(response.status).toBe('completed');
        expect(response.output).toMatchObject([
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello there' }] },
        ]);
        expect(upstream.received).toHaveLength(1);
      }),
    );

    test(
      'streaming: each upstream increment is its own delta, in order, in a valid stream',
      withGateway(async ({ upstream, stream }) => {
        upstream.script({ kind: 'text', deltas: ['Hel', 'lo', ' there'] });
        const { events, violations, final } = await stream({ input: 'Hi' });
        expect(violations).toEqual([]);
        expect(
          events.filter((e) => e.type === 'response.output_text.delta').map((e) => (e as { delta: string }).delta),
        ).toEqual(['Hel', 'lo', ' there']);
        expect(final.status).toBe('completed');
      }),
    );

    test(
      'tools: a call comes out with its call_id and arguments; its output goes back on the next turn',
      withGateway(async ({ upstream, json }) => {
        upstream.script(
          {
            kind: 'tool-calls',
            calls: [{ id: 'call_conf_1', name: 'get_weather', arguments: '{"location":"Paris"}' }],
          },
          { kind: 'text', deltas: ['Sunny.'] },
        );
        const first = await json({ input: 'Weather in Paris?', tools: [weather] });
        expect(first.output).toMatchObject([
          { type: 'function_call', name: 'get_weather', call_id: 'call_conf_1', arguments: '{"location":"Paris"}' },
        ]);
        const second = await json({
          previous_response_id: first.id,
          tools: [weather],
          input: [{ type: 'function_call_output', call_id: 'call_conf_1', output: '18C' }],
        });
        expect(second.status).toBe('completed');
        expect(family.toolResults(upstream.received[1]!.body)).toEqual([{ callId: 'call_conf_1', output: '18C' }]);
      }),
    );

    test(
      'parallel tools: two calls in one turn stream one after the other, in order',
      withGateway(async ({ upstream, stream }) => {
        upstream.script({
          kind: 'tool-calls',
          calls: [
            { id: 'call_conf_a', name: 'get_weather', arguments: '{"location":"Paris"}' },
            { id: 'call_conf_b', name: 'get_weather', arguments: '{"location":"Tokyo"}' },
          ],
        });
        const { violations, final } = await stream({ input: 'Paris and Tokyo?', tools: [weather] });
        expect(violations).toEqual([]);
        expect((final.output as Output).map((item) => [item.type, item.call_id, item.arguments])).toEqual([
          ['function_call', 'call_conf_a', '{"location":"Paris"}'],
          ['function_call', 'call_conf_b', '{"location":"Tokyo"}'],
        ]);
      }),
    );

    test(
      'reasoning round trip: reasoning before a tool call comes out as a reasoning item and goes back on the continuation',
      withGateway(async ({ upstream, stream }) => {
        upstream.script(
          {
            kind: 'reasoning',
            reasoning: 'Paris needs the tool.',
            opaque: 'opaque-token-9f2',
            calls: [{ id: 'call_conf_r', name: 'get_weather', arguments: '{"location":"Paris"}' }],
          },
          { kind: 'text', deltas: ['Sunny.'] },
        );
        const first = await stream({ input: 'Weather in Paris?', tools: [weather], reasoning: { effort: 'medium' } });
        expect(first.violations).toEqual([]);
        const output = first.final.output as Output;
        expect(output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
        const second = await stream({
          previous_response_id: first.final.id,
          tools: [weather],
          reasoning: { effort: 'medium' },
          input: [{ type: 'function_call_output', call_id: 'call_conf_r', output: '18C' }],
        });
        expect(second.final.status).toBe('completed');
        if (family.reasoningSentBack)
          expect(family.reasoningSentBack(upstream.received[1]!.body)).toEqual(['opaque-token-9f2']);
      }),
    );

    test(
      'length: the output token limit ends the response incomplete (max_output_tokens)',
      withGateway(async ({ upstream, stream }) => {
        upstream.script({ kind: 'length', deltas: ['Once', ' upon'] });
        const { violations, final } = await stream({ input: 'A story', max_output_tokens: 16 });
        expect(violations).toEqual([]);
        expect(final).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
      }),
    );

    for (const [status, expected] of [
      [400, { status: 400, type: 'invalid_request' }],
      [401, { status: 500, type: 'server_error', code: 'upstream_authentication_failed' }],
      [429, { status: 429, type: 'too_many_requests', code: 'rate_limited' }],
      [500, { status: 500, type: 'model_error', code: 'upstream_error' }],
    ] as const)
      test(
        `failure: an upstream ${status} is a ${expected.status} ${expected.type}, without the upstream key`,
        withGateway(async ({ upstream, post }) => {
          upstream.script({ kind: 'status', status, retryAfter: status === 429 ? '3' : undefined });
          const response = await post({ input: 'Hi' });
          expect(response.status).toBe(expected.status);
          const text = await response.text();
          expect(JSON.parse(text)).toMatchObject({
            error: 'code' in expected ? { type: expected.type, code: expected.code } : { type: expected.type },
          });
          expect(text).not.toContain(UPSTREAM_KEY);
          if (status === 429) expect(response.headers.get('retry-after')).toBe('3');
        }),
      );

    test(
      'failure: a mid-stream error fails the started response with an error event',
      withGateway(async ({ upstream, stream }) => {
        upstream.script({ kind: 'error-midstream', deltas: ['Partial'] });
        const { events, violations, final } = await stream({ input: 'Hi' });
        expect(violations).toEqual([]);
        expect(events.some((e) => e.type === 'error')).toBe(true);
        expect(final.status).toBe('failed');
      }),
    );

    test(
      'failure: a cut stream fails the response (upstream_stream_cut), never a silent truncation',
      withGateway(async ({ upstream, stream }) => {
        upstream.script({ kind: 'cut', deltas: ['The answer is'] });
        const { events, violations, final } = await stream({ input: 'Hi' });
        expect(violations).toEqual([]);
        expect(events.find((e) => e.type === 'error')).toMatchObject({ error: { code: 'upstream_stream_cut' } });
        expect(final.status).toBe('failed');
      }),
    );

    test(
      'cancellation: a client that goes away aborts the upstream call',
      withGateway(async ({ upstream, post }) => {
        upstream.script({ kind: 'hold', deltas: ['Still', ' going'] });
        const controller = new AbortController();
        const response = await post({ input: 'Hi', stream: true }, controller.signal);
        const reader = response.body!.getReader();
        // Read until the first delta arrived, then leave.
        let seen = '';
        while (!seen.includes('output_text.delta')) {
          const next = await reader.read();
          if (next.done) break;
          seen += new TextDecoder().decode(next.value);
        }
        controller.abort();
        await reader.cancel().catch(() => {});
        for (let waited = 0; !upstream.received[0]!.aborted && waited < 10_000; waited += 20)
          await new Promise((resolve) => setTimeout(resolve, 20));
        expect(upstream.received[0]!.aborted).toBe(true);
      }),
    );
  });
}

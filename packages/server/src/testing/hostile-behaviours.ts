// The hostile upstream's built-in behaviours (hostile-upstream.ts serves them): a Chat Completions upstream
// misbehaving in one named way each, from the findings of issue 23. The family-neutral scenarios every
// family must survive are the hostile contract's (hostile-contract.ts).
import type { HostileBehaviour, HostileExchange } from './hostile-upstream.js';

const CHUNK_ID = 'chatcmpl-hostile';
const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({
    id: CHUNK_ID,
    object: 'chat.completion.chunk',
    created: 0,
    model: 'hostile',
    choices: [{ index: 0, delta, finish_reason: null, ...extra }],
  })}\n\n`;
const finishChunk = (reason: string, usage?: unknown) =>
  `data: ${JSON.stringify({
    id: CHUNK_ID,
    object: 'chat.completion.chunk',
    created: 0,
    model: 'hostile',
    choices: [{ index: 0, delta: {}, finish_reason: reason }],
    ...(usage === undefined ? {} : { usage }),
  })}\n\n`;
const completion = (message: Record<string, unknown>, usage: unknown = { prompt_tokens: 1, completion_tokens: 1 }) => ({
  id: CHUNK_ID,
  object: 'chat.completion',
  created: 0,
  model: 'hostile',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
  usage,
});
/** The start of a chat completion, up to the opening quote of the message text. */
const COMPLETION_HEAD = `{"id":"${CHUNK_ID}","object":"chat.completion","created":0,"model":"hostile","choices":[{"index":0,"message":{"role":"assistant","content":"`;
const COMPLETION_TAIL = '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}';

const filler = (bytes: number) => 'x'.repeat(Math.max(0, bytes));

/** Writes `total` bytes of `piece` repeated (the last piece cut), with backpressure; false when the connection closed. */
async function writeRepeated(exchange: HostileExchange, piece: string, total: number): Promise<boolean> {
  const block = piece.repeat(Math.max(1, Math.floor((64 * 1024) / piece.length)));
  for (let written = 0; written < total; written += block.length)
    if (!(await exchange.write(block.slice(0, Math.min(block.length, total - written))))) return false;
  return true;
}

function sseHead(exchange: HostileExchange): void {
  exchange.response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

function jsonHead(exchange: HostileExchange, status = 200, headers: Record<string, string> = {}): void {
  exchange.response.writeHead(status, { 'content-type': 'application/json', ...headers });
}

/** Sends `text` whole, as JSON with its length. */
function sendJson(exchange: HostileExchange, status: number, value: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(value);
  exchange.response
    .writeHead(status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    })
    .end(text);
}

/** Chunks forever (until the connection closes or `maxBytes`): `make(i)` is the i-th one. */
async function endless(exchange: HostileExchange, make: (index: number) => string): Promise<void> {
  for (let i = 0; ; i++) if (!(await exchange.write(make(i)))) return;
}

/**
 * The built-in behaviours. Each reproduces one finding of issue 23 (the upstream is untrusted); the name is
 * what a test selects. Extend by passing `behaviours` to `startHostileUpstream`, or add an entry here.
 */
export const HOSTILE_BEHAVIOURS: Readonly<Record<string, HostileBehaviour>> = {
  'huge-json-answer': {
    description: 'a whole (valid) chat completion of `bytes` bytes',
    async serve(exchange) {
      // Counted, not built: a string of 600 MiB is more than a JavaScript string can hold.
      const length = Math.max(0, exchange.options.bytes - COMPLETION_HEAD.length - COMPLETION_TAIL.length);
      jsonHead(exchange, 200, {
        'content-length': String(COMPLETION_HEAD.length + length + COMPLETION_TAIL.length),
      });
      if (!(await exchange.write(COMPLETION_HEAD))) return;
      if (!(await writeRepeated(exchange, 'x', length))) return;
      await exchange.write(COMPLETION_TAIL);
      exchange.response.end();
    },
  },
  'huge-error-body': {
    description: 'HTTP 500 with a JSON error whose message is `bytes` bytes long',
    async serve(exchange) {
      const head = '{"error":{"type":"server_error","code":null,"param":null,"message":"';
      const tail = '"}}';
      jsonHead(exchange, 500);
      if (!(await exchange.write(head))) return;
      if (!(await writeRepeated(exchange, 'x', exchange.options.bytes - head.length - tail.length))) return;
      await exchange.write(tail);
      exchange.response.end();
    },
  },
  'huge-model-list': {
    description: '`GET /models` answers a list of `bytes` bytes (chat requests get a short text)',
    async serve(exchange) {
      if (exchange.endpoint !== '/models') return HOSTILE_BEHAVIOURS['short-answer']!.serve(exchange);
      jsonHead(exchange);
      if (!(await exchange.write('{"object":"list","data":['))) return;
      let written = 0;
      for (let i = 0; written < exchange.options.bytes; i++) {
        const entry = `${i === 0 ? '' : ','}{"id":"model-${i}-${filler(200)}","object":"model","created":0,"owned_by":"hostile"}`;
        written += entry.length;
        if (!(await exchange.write(entry))) return;
      }
      await exchange.write(']}');
      exchange.response.end();
    },
  },
  'endless-sse-line': {
    description: 'a streamed `data:` line that never gets its line break',
    async serve(exchange) {
      sseHead(exchange);
      if (!(await exchange.write('data: {"id":"x","choices":[{"index":0,"delta":{"content":"'))) return;
      const block = filler(64 * 1024);
      await endless(exchange, () => block);
    },
  },
  'endless-json-body': {
    description: 'a JSON answer that never ends (chunks as fast as the gateway reads)',
    async serve(exchange) {
      jsonHead(exchange);
      if (!(await exchange.write(COMPLETION_HEAD))) return;
      const block = filler(64 * 1024);
      await endless(exchange, () => block);
    },
  },
  'dripping-json-body': {
    description: 'a JSON answer that never ends, a few bytes every `intervalMs` (only a deadline ends it)',
    async serve(exchange) {
      jsonHead(exchange);
      if (!(await exchange.write(COMPLETION_HEAD))) return;
      while ((await exchange.pause(exchange.options.intervalMs)) && (await exchange.write('xx')));
    },
  },
  'endless-deltas': {
    description: 'valid text deltas forever, never a finish',
    async serve(exchange) {
      sseHead(exchange);
      const delta = chunk({ content: filler(1024) });
      await endless(exchange, () => delta);
    },
  },
  'dripping-deltas': {
    description: 'a valid text delta every `intervalMs`, forever (each is an event: only a deadline ends it)',
    async serve(exchange) {
      sseHead(exchange);
      const delta = chunk({ content: 'drip ' });
      while ((await exchange.write(delta)) && (await exchange.pause(exchange.options.intervalMs)));
    },
  },
  'keep-alive-forever': {
    description: 'an SSE stream of `: keep-alive` comments every `intervalMs`, never an event',
    async serve(exchange) {
      sseHead(exchange);
      while ((await exchange.write(': keep-alive\n\n')) && (await exchange.pause(exchange.options.intervalMs)));
    },
  },
  'logprob-flood': {
    description: 'one character of text per chunk carrying 1,000 logprob tokens, forever',
    async serve(exchange) {
      sseHead(exchange);
      const content = Array.from({ length: 1000 }, () => ({
        token: 'a',
        logprob: -0.5,
        bytes: [97],
        top_logprobs: [],
      }));
      const flood = chunk({ content: 'a' }, { logprobs: { content } });
      await endless(exchange, () => flood);
    },
  },
  'nameless-tool-arguments': {
    description: 'argument fragments for a tool call that never gets an id or a name, forever',
    async serve(exchange) {
      sseHead(exchange);
      const fragment = chunk({ tool_calls: [{ index: 0, function: { arguments: filler(1024) } }] });
      await endless(exchange, () => fragment);
    },
  },
  'endless-tool-name': {
    description: 'a tool call whose name grows by fragments forever',
    async serve(exchange) {
      sseHead(exchange);
      if (
        !(await exchange.write(
          chunk({ tool_calls: [{ index: 0, id: 'call_h', type: 'function', function: { name: 'f' } }] }),
        ))
      )
        return;
      const fragment = chunk({ tool_calls: [{ index: 0, function: { name: filler(1024) } }] });
      await endless(exchange, () => fragment);
    },
  },
  'many-tool-calls': {
    description: '`count` complete tool calls in one streamed answer, then a finish',
    async serve(exchange) {
      sseHead(exchange);
      for (let i = 0; i < exchange.options.count; i++) {
        const call = { index: i, id: `call_${i}`, type: 'function', function: { name: 'f', arguments: '{}' } };
        if (!(await exchange.write(chunk({ tool_calls: [call] })))) return;
      }
      if (!(await exchange.write(finishChunk('tool_calls')))) return;
      await exchange.write('data: [DONE]\n\n');
      exchange.response.end();
    },
  },
  'key-in-error': {
    description:
      "HTTP 400 whose error `param` is the gateway's key and whose message ends with it, past 500 characters",
    serve(exchange) {
      const key = exchange.apiKey || 'no-key-sent';
      sendJson(exchange, 400, {
        error: {
          type: 'invalid_request_error',
          code: key,
          param: key,
          message: `${filler(480)} Incorrect API key provided: ${key}`,
        },
      });
    },
  },
  'hostile-retry-after': {
    description: 'HTTP 429 with a 12 KB `Retry-After` and a negative `retry-after-ms`',
    serve(exchange) {
      sendJson(
        exchange,
        429,
        { error: { type: 'requests', code: 'rate_limit_exceeded', param: null, message: 'slow down' } },
        { 'retry-after': '9'.repeat(12 * 1024), 'retry-after-ms': '-5000' },
      );
    },
  },
  'type-invalid-values': {
    description:
      'an answer with `usage.prompt_tokens: "lots"`, negative counts and an object tool call id (JSON and stream)',
    async serve(exchange) {
      const usage = { prompt_tokens: 'lots', completion_tokens: -3, total_tokens: -1, input_tokens: 'lots' };
      const call = { index: 0, id: { not: 'a string' }, type: 'function', function: { name: 'f', arguments: '{}' } };
      if (!exchange.stream) {
        sendJson(exchange, 200, completion({ content: null, tool_calls: [call] }, usage));
        return;
      }
      sseHead(exchange);
      if (!(await exchange.write(chunk({ role: 'assistant', tool_calls: [call] })))) return;
      if (!(await exchange.write(finishChunk('tool_calls', usage)))) return;
      await exchange.write('data: [DONE]\n\n');
      exchange.response.end();
    },
  },
  'cut-json-answer': {
    description: 'a JSON answer announced at `bytes` bytes whose connection drops halfway',
    async serve(exchange) {
      const length = Math.max(exchange.options.bytes, COMPLETION_HEAD.length + 64);
      jsonHead(exchange, 200, { 'content-length': String(length) });
      if (!(await exchange.write(COMPLETION_HEAD))) return;
      if (!(await writeRepeated(exchange, 'x', Math.floor(length / 2) - COMPLETION_HEAD.length))) return;
      // Let the half reach the gateway, then drop the connection.
      await exchange.pause(20);
      exchange.response.destroy();
    },
  },
  'short-answer': {
    description: 'a well-behaved short text answer (JSON or stream), and a one-model list',
    async serve(exchange) {
      if (exchange.endpoint === '/models') {
        sendJson(exchange, 200, {
          object: 'list',
          data: [{ id: 'hostile', object: 'model', created: 0, owned_by: 'hostile' }],
        });
        return;
      }
      if (!exchange.stream) {
        sendJson(exchange, 200, completion({ content: 'fine' }));
        return;
      }
      sseHead(exchange);
      if (!(await exchange.write(chunk({ role: 'assistant', content: 'fine' })))) return;
      if (!(await exchange.write(finishChunk('stop', { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }))))
        return;
      await exchange.write('data: [DONE]\n\n');
      exchange.response.end();
    },
  },
};

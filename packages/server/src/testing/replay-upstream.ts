// A Chat Completions, Responses, Anthropic Messages and Gemini upstream on 127.0.0.1 that replays recorded streams
// (./recordings, written from the documented wire formats of OpenAI, Ollama, vLLM, Anthropic and Gemini, broken
// ones included; a request with an `anthropic-version` header is answered as Anthropic, one under `/v1beta/`
// as Gemini, `POST /v1/responses` from the `responses-*` recordings) and records every request it
// receives, so gateway tests assert both what the client saw and what the gateway sent.
//
// Which recording: the model name when a fixture has that name (`vllm-reasoning`, `status-429`, …);
// otherwise it is chosen from the request the way a model would answer (a tool call for the first
// tool offered unless tool_choice is none, a cut stream when the user wrote [fail], text otherwise).
// `: replay cut` in a recording drops the connection there; `: replay hold` holds the stream until
// `release()`. `delayMs` paces every event (a slow upstream); `hang` never answers.
import { readFileSync, existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { responseFromRecording, responsesFixtureFor } from './replay-responses.js';

// From src/testing and from dist/testing alike (the recordings are published under src/).
const FIXTURES = new URL('../../src/testing/recordings/', import.meta.url);

/** A request the replay upstream received. */
export interface ReceivedRequest {
  /** The request path. */
  path: string;
  /** Its headers. */
  headers: IncomingMessage['headers'];
  /** Its JSON body. */
  body: Record<string, unknown>;
  /** Whether the gateway closed the connection before the answer was complete. */
  aborted: boolean;
}

/** A running replay upstream, from `startReplayUpstream`. */
export interface ReplayUpstream {
  /** The API root, `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** Every request received, in order. */
  received: ReceivedRequest[];
  /** Ends a `: replay hold`. */
  release(): void;
  /** Paces every SSE event by this many ms (0 by default). */
  delayMs: number;
  /** Stops it. */
  close(): Promise<void>;
}

/** Starts an upstream that answers Chat Completions, Responses, Anthropic Messages and Gemini requests from the recordings under `src/testing/recordings/`, on a free port. */
export async function startReplayUpstream(): Promise<ReplayUpstream> {
  const received: ReceivedRequest[] = [];
  let releaseHold: () => void = () => {};
  let held = new Promise<void>((resolve) => {
    releaseHold = resolve;
  });
  const upstream: ReplayUpstream = {
    baseUrl: '',
    received,
    delayMs: 0,
    release: () => {
      releaseHold();
      held = new Promise<void>((resolve) => {
        releaseHold = resolve;
      });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    const record: ReceivedRequest = { path: req.url ?? '', headers: req.headers, body, aborted: false };
    received.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.aborted = true;
    });
    // The Gemini API (paths under /v1beta): recordings named gemini-*.
    if (req.url?.startsWith('/v1beta/')) {
      await replayGemini(req, res, body, upstream, () => held);
      return;
    }
    // Anthropic's Messages API (anthropic-version header): recordings named claude-*.
    const anthropic = req.headers['anthropic-version'] !== undefined;
    if (anthropic && req.url?.startsWith('/v1/models')) {
      json(res, 200, {
        data: ANTHROPIC_MODELS.map((id) => ({
          type: 'model',
          id,
          display_name: id,
          created_at: '2025-09-29T00:00:00Z',
        })),
        has_more: false,
        first_id: ANTHROPIC_MODELS[0],
        last_id: ANTHROPIC_MODELS.at(-1),
      });
      return;
    }
    if (req.url === '/v1/models') {
      json(res, 200, { object: 'list', data: [{ id: 'llama3.2', object: 'model', created: 0, owned_by: 'library' }] });
      return;
    }
    if (!anthropic && req.url === '/v1/responses') {
      const name = responsesFixtureFor(body, (file) => existsSync(new URL(file, FIXTURES)));
      if (body.stream === true) await replayStream(res, name, upstream, () => held);
      else json(res, 200, responseFromRecording(fixture(`${name}.sse`)));
      return;
    }
    if (req.url !== (anthropic ? '/v1/messages' : '/v1/chat/completions')) {
      json(res, 404, { error: { message: `no route ${req.url}` } });
      return;
    }
    const name = anthropic ? anthropicFixtureFor(body) : fixtureFor(body);
    if (name === 'hang' || name === 'claude-hang') return; // never answers: the gateway's timeout ends it
    if (name.startsWith('status-') || name.startsWith('claude-status-')) {
      replayStatus(req, res, name);
      return;
    }
    if (body.stream !== true) {
      if (existsSync(new URL(`${name}.json`, FIXTURES)) || !anthropic) {
        const whole = existsSync(new URL(`${name}.json`, FIXTURES)) ? `${name}.json` : 'openai-text.json';
        res.writeHead(200, { 'content-type': 'application/json' }).end(fixture(whole));
      } else json(res, 200, messageFromRecording(fixture(`${name}.sse`)));
      return;
    }
    await replayStream(res, name, upstream, () => held);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return upstream;
}

/** A status recording (`{{key}}` replaced by the key the gateway sent, as upstreams echo it). */
function replayStatus(req: IncomingMessage, res: ServerResponse, name: string): void {
  const key =
    (req.headers['x-api-key'] as string | undefined) ??
    (req.headers['x-goog-api-key'] as string | undefined) ??
    /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ??
    '';
  const scenario = JSON.parse(fixture(`${name}.json`).replaceAll('{{key}}', key)) as {
    status: number;
    headers: Record<string, string>;
    body: unknown;
  };
  json(res, scenario.status, scenario.body, scenario.headers);
}

/** A stream recording, event by event (blank-line or CRLF blank-line separated), honouring `: replay cut` and `: replay hold`. */
async function replayStream(
  res: ServerResponse,
  name: string,
  upstream: ReplayUpstream,
  held: () => Promise<void>,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const text = fixture(`${name}.sse`);
  const separator = text.includes('\r\n\r\n') ? '\r\n\r\n' : '\n\n';
  for (const block of text.split(separator)) {
    if (block.trim() === '') continue;
    if (block.trim() === ': replay cut') {
      // Let what was written reach the gateway, then drop the connection without ending the response.
      await new Promise((resolve) => setTimeout(resolve, 30));
      res.destroy();
      return;
    }
    if (block.trim() === ': replay hold') {
      await held();
      continue;
    }
    if (upstream.delayMs) await new Promise((resolve) => setTimeout(resolve, upstream.delayMs));
    if (res.destroyed) return;
    res.write(`${block}${separator}`);
  }
  res.end();
}

/** The models the replayed Gemini upstream lists on `GET /v1beta/models`, in two pages (an embedding model, which cannot generate content, among them). */
export const GEMINI_MODEL_PAGES = [
  ['gemini-2.5-flash', 'gemini-3-pro-preview', 'text-embedding-004'],
  ['gemini-3-flash-preview'],
];

/**
 * The Gemini API: `GET /v1beta/models` in pages (`pageToken`), and `POST /v1beta/models/{model}:generateContent`
 * or `:streamGenerateContent?alt=sse` answered from a recording: the model's own when one is named so
 * (`gemini-max-tokens`, `gemini-status-429`); else a cut stream when the user wrote [fail], a function call for
 * the first tool offered (after thoughts when thoughts are asked for) unless calling is NONE or the last turn
 * carries function results, thoughts then text when thoughts are asked for, text otherwise. A whole answer is
 * the `.json` recording, or the stream's chunks joined.
 */
async function replayGemini(
  req: IncomingMessage,
  res: ServerResponse,
  body: Record<string, unknown>,
  upstream: ReplayUpstream,
  held: () => Promise<void>,
): Promise<void> {
  const url = new URL(req.url!, 'http://upstream');
  if (req.method === 'GET' && url.pathname === '/v1beta/models') {
    const page = url.searchParams.get('pageToken') === 'page-2' ? 1 : 0;
    const models = GEMINI_MODEL_PAGES[page]!.map((id) => ({
      name: `models/${id}`,
      displayName: id,
      supportedGenerationMethods: id.startsWith('gemini') ? ['generateContent', 'countTokens'] : ['embedContent'],
    }));
    json(res, 200, page === 0 ? { models, nextPageToken: 'page-2' } : { models });
    return;
  }
  const call = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(url.pathname);
  if (req.method !== 'POST' || !call) {
    json(res, 404, { error: { code: 404, message: `no route ${url.pathname}`, status: 'NOT_FOUND' } });
    return;
  }
  const name = geminiFixtureFor(decodeURIComponent(call[1]!), body);
  if (name === 'gemini-hang') return; // never answers: the gateway's timeout ends it
  if (name.startsWith('gemini-status-')) {
    replayStatus(req, res, name);
    return;
  }
  if (call[2] === 'generateContent') {
    if (existsSync(new URL(`${name}.json`, FIXTURES)))
      res.writeHead(200, { 'content-type': 'application/json' }).end(fixture(`${name}.json`));
    else json(res, 200, geminiAnswerFromRecording(fixture(`${name}.sse`)));
    return;
  }
  await replayStream(res, name, upstream, held);
}

function geminiFixtureFor(model: string, body: Record<string, unknown>): string {
  if (
    model === 'gemini-hang' ||
    existsSync(new URL(`${model}.sse`, FIXTURES)) ||
    existsSync(new URL(`${model}.json`, FIXTURES))
  )
    return model;
  const contents = (body.contents ?? []) as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
  const last = contents.at(-1);
  if (last?.role === 'user' && JSON.stringify(last.parts).includes('[fail]')) return 'gemini-cut';
  const config = body.generationConfig as { thinkingConfig?: { includeThoughts?: boolean } } | undefined;
  const thinks = config?.thinkingConfig?.includeThoughts === true;
  const tools = ((body.tools ?? []) as Array<{ functionDeclarations?: Array<{ name: string }> }>).flatMap(
    (tool) => tool.functionDeclarations ?? [],
  );
  const mode = (body.toolConfig as { functionCallingConfig?: { mode?: string } } | undefined)?.functionCallingConfig
    ?.mode;
  const afterTools = last?.parts.some((part) => 'functionResponse' in part) ?? false;
  if (tools.length > 0 && mode !== 'NONE' && !afterTools) {
    const name = `gemini-${thinks ? 'thinking-tool' : 'tool'}-${tools[0]!.name}`;
    if (existsSync(new URL(`${name}.sse`, FIXTURES))) return name;
  }
  return thinks ? 'gemini-thinking-text' : 'gemini-text';
}

/** The whole answer a Gemini stream recording stands for: its parts joined (adjacent text of one kind in one part), the last finish reason and usage. */
function geminiAnswerFromRecording(sse: string): Record<string, unknown> {
  type Part = { text?: string; thought?: boolean; thoughtSignature?: string; [key: string]: unknown };
  type Chunk = { candidates?: Array<{ content?: { parts?: Part[] }; [key: string]: unknown }>; [key: string]: unknown };
  const parts: Part[] = [];
  let answer: Chunk = {};
  let candidate: Record<string, unknown> = {};
  for (const line of sse.split(/\r?\n/)) {
    if (!line.startsWith('data: ')) continue;
    const chunk = JSON.parse(line.slice(6)) as Chunk;
    answer = { ...answer, ...chunk };
    const next = chunk.candidates?.[0];
    if (!next) continue;
    candidate = { ...candidate, ...next };
    for (const part of next.content?.parts ?? []) {
      const previous = parts.at(-1);
      const joins =
        previous &&
        typeof previous.text === 'string' &&
        typeof part.text === 'string' &&
        !previous.thoughtSignature &&
        !!previous.thought === !!part.thought;
      if (joins) Object.assign(previous, { ...part, text: previous.text + part.text! });
      else parts.push({ ...part });
    }
  }
  return {
    ...answer,
    candidates: answer.candidates ? [{ ...candidate, content: { role: 'model', parts } }] : undefined,
  };
}

function fixture(file: string): string {
  return readFileSync(new URL(file, FIXTURES), 'utf8');
}

function fixtureFor(body: Record<string, unknown>): string {
  const model = String(body.model ?? '');
  if (
    model === 'hang' ||
    existsSync(new URL(`${model}.sse`, FIXTURES)) ||
    existsSync(new URL(`${model}.json`, FIXTURES))
  )
    return model;
  const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  if (JSON.stringify(lastUser?.content ?? '').includes('[fail]')) return 'cut';
  const tools = (body.tools ?? []) as Array<{ function: { name: string } }>;
  const last = messages.at(-1);
  if (tools.length > 0 && body.tool_choice !== 'none' && last?.role !== 'tool') {
    const name = tools[0]!.function.name;
    if (existsSync(new URL(`openai-tool-${name}.sse`, FIXTURES))) return `openai-tool-${name}`;
  }
  return 'openai-text';
}

/** The models the replayed Anthropic upstream lists on `GET /v1/models`. */
export const ANTHROPIC_MODELS = ['claude-sonnet-4-5-20250929', 'claude-opus-4-6', 'claude-haiku-4-5'];

/**
 * A Messages recording: the model's own when one is named so (`claude-max-tokens`, `claude-status-529`,
 * `claude-hang`); else a cut stream when the user wrote [fail], a tool call for the first tool offered
 * (after thinking when thinking is on) unless tool_choice is none or the last turn carries tool results,
 * thinking then text when thinking is on, text otherwise.
 */
function anthropicFixtureFor(body: Record<string, unknown>): string {
  const model = String(body.model ?? '');
  if (
    model === 'claude-hang' ||
    existsSync(new URL(`${model}.sse`, FIXTURES)) ||
    existsSync(new URL(`${model}.json`, FIXTURES))
  )
    return model;
  const messages = (body.messages ?? []) as Array<{ role: string; content: Array<{ type: string }> }>;
  const last = messages.at(-1);
  if (last?.role === 'user' && JSON.stringify(last.content).includes('[fail]')) return 'claude-cut';
  const thinking = (body.thinking as { type?: string } | undefined)?.type;
  const thinks = thinking === 'enabled' || thinking === 'adaptive';
  const tools = (body.tools ?? []) as Array<{ name: string }>;
  const afterTools = last?.content.some((block) => block.type === 'tool_result') ?? false;
  if (tools.length > 0 && (body.tool_choice as { type?: string } | undefined)?.type !== 'none' && !afterTools) {
    const name = `claude-${thinks ? 'thinking-tool' : 'tool'}-${tools[0]!.name}`;
    if (existsSync(new URL(`${name}.sse`, FIXTURES))) return name;
  }
  return thinks ? 'claude-thinking-text' : 'claude-text';
}

/** The whole message a Messages stream recording stands for (what the same answer looks like unstreamed). */
function messageFromRecording(sse: string): Record<string, unknown> {
  type Event = {
    type: string;
    index: number;
    message: Record<string, unknown>;
    content_block: Record<string, unknown>;
    delta: Record<string, string>;
    usage: Record<string, unknown>;
  };
  let message: Record<string, unknown> = {};
  const blocks: Array<Record<string, unknown>> = [];
  const json: string[] = [];
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const event = JSON.parse(line.slice(6)) as Event;
    if (event.type === 'message_start') message = event.message;
    else if (event.type === 'content_block_start') {
      blocks[event.index] = { ...event.content_block };
      json[event.index] = '';
    } else if (event.type === 'content_block_delta') {
      const block = blocks[event.index]!;
      const delta = event.delta;
      if (delta.type === 'text_delta') block.text += delta.text!;
      else if (delta.type === 'thinking_delta') block.thinking += delta.thinking!;
      else if (delta.type === 'signature_delta') block.signature = String(block.signature ?? '') + delta.signature;
      else if (delta.type === 'input_json_delta') json[event.index] += delta.partial_json!;
    } else if (event.type === 'message_delta') {
      message.stop_reason = event.delta.stop_reason;
      message.usage = { ...(message.usage as object), ...event.usage };
    }
  }
  blocks.forEach((block, index) => {
    if (block.type === 'tool_use') block.input = json[index] ? JSON.parse(json[index]!) : {};
  });
  return { ...message, content: blocks };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

// A Chat Completions and Anthropic Messages upstream on 127.0.0.1 that replays recorded streams
// (./recordings, written from the documented wire formats of OpenAI, Ollama, vLLM and Anthropic, broken
// ones included; a request with an `anthropic-version` header is answered as Anthropic) and records every request it
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

/** Starts an upstream that answers Chat Completions and Anthropic Messages requests from the recordings under `src/testing/recordings/`, on a free port. */
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
    if (req.url !== (anthropic ? '/v1/messages' : '/v1/chat/completions')) {
      json(res, 404, { error: { message: `no route ${req.url}` } });
      return;
    }
    const name = anthropic ? anthropicFixtureFor(body) : fixtureFor(body);
    if (name === 'hang' || name === 'claude-hang') return; // never answers: the gateway's timeout ends it
    if (name.startsWith('status-') || name.startsWith('claude-status-')) {
      const key =
        (req.headers['x-api-key'] as string | undefined) ??
        /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ??
        '';
      const scenario = JSON.parse(fixture(`${name}.json`).replaceAll('{{key}}', key)) as {
        status: number;
        headers: Record<string, string>;
        body: unknown;
      };
      json(res, scenario.status, scenario.body, scenario.headers);
      return;
    }
    if (body.stream !== true) {
      if (existsSync(new URL(`${name}.json`, FIXTURES)) || !anthropic) {
        const whole = existsSync(new URL(`${name}.json`, FIXTURES)) ? `${name}.json` : 'openai-text.json';
        res.writeHead(200, { 'content-type': 'application/json' }).end(fixture(whole));
      } else json(res, 200, messageFromRecording(fixture(`${name}.sse`)));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const block of fixture(`${name}.sse`).split(/\n\n/)) {
      if (block.trim() === '') continue;
      if (block.trim() === ': replay cut') {
        // Let what was written reach the gateway, then drop the connection without ending the response.
        await new Promise((resolve) => setTimeout(resolve, 30));
        res.destroy();
        return;
      }
      if (block.trim() === ': replay hold') {
        await held;
        continue;
      }
      if (upstream.delayMs) await new Promise((resolve) => setTimeout(resolve, upstream.delayMs));
      if (res.destroyed) return;
      res.write(`${block}\n\n`);
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return upstream;
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

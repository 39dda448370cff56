// Routing and configuration: the config file's routes (exact names, prefixes, upstream names, defaults,
// keys from named environment variables), its mistakes as clear messages, and the CLI's flags and
// environment as a real child process in front of the replay upstream.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { GatewayConfigError, providersFromConfig } from '../src/index.js';
import type { RunningServer } from '../src/node/index.js';
import { gatewayProviders } from '../src/node/index.js';
import { runCliToExit, startCli } from './cli-process.js';
import { API_KEY, startTestServer } from './harness.js';
import { startReplayUpstream, type ReplayUpstream } from '../src/testing/index.js';

let upstream: ReplayUpstream;
let folder: string;
beforeAll(async () => {
  upstream = await startReplayUpstream();
  folder = mkdtempSync(path.join(tmpdir(), 'gateway-config-'));
});
afterAll(async () => {
  await upstream.close();
  rmSync(folder, { recursive: true, force: true });
});
beforeEach(() => {
  upstream.received.length = 0;
});

describe('config routes', () => {
  let server: RunningServer;
  let client: OpenAI;
  beforeAll(async () => {
    const file = path.join(folder, 'routes.json');
    writeFileSync(
      file,
      JSON.stringify({
        routes: [
          {
            model: 'fast',
            url: upstream.baseUrl,
            apiKeyEnv: 'FAST_KEY',
            upstreamModel: 'openai-text',
            defaults: { temperature: 0.1, stop: ['END'] },
          },
          { prefix: 'local/', url: upstream.baseUrl, maxTokensField: 'max_completion_tokens' },
        ],
      }),
    );
    server = await startTestServer({ providers: gatewayProviders({ configPath: file, env: { FAST_KEY: 'sk-fast' } }) });
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
  });
  afterAll(() => server.close());

  test('an exact name goes upstream under its upstream name, with its key and defaults (the request wins)', async () => {
    const response = await client.responses.create({ model: 'fast', input: 'hi', temperature: 0.7 });
    expect(response.model).toBe('fast');
    expect(response.output_text).toBe('Hello from the upstream.');
    const sent = upstream.received.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-fast');
    expect(sent.body).toMatchObject({ model: 'openai-text', temperature: 0.7, stop: ['END'] });
  });

  test('a prefix goes upstream without it; max_output_tokens in the configured field; no key, no header', async () => {
    await client.responses.create({ model: 'local/vllm-reasoning', input: 'hi', max_output_tokens: 64 });
    const sent = upstream.received.at(-1)!;
    expect(sent.body).toMatchObject({ model: 'vllm-reasoning', max_completion_tokens: 64 });
    expect(sent.body.max_tokens).toBeUndefined();
    expect(sent.headers.authorization).toBeUndefined();
  });

  test('names no route serves are model_not_found; the embedded model still answers; /v1/models lists them all', async () => {
    const error = await client.responses.create({ model: 'elsewhere', input: 'hi' }).catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ code: 'model_not_found' });
    const own = await client.responses.create({ model: 'openresponses-deterministic', input: 'hi' });
    expect(own.output_text).toBe('You said: "hi".');
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(['openresponses-deterministic', 'fast', 'local/llama3.2']);
  });
});

describe('config mistakes', () => {
  const url = 'http://127.0.0.1:11434/v1';
  test.each([
    [
      { routes: [{ model: 'a', url, apiKey: 'sk-inline' }] },
      'routes[0].apiKey: keys are not written in the configuration',
    ],
    [{ routes: [{ model: 'a', url, apiKeyEnv: 'MISSING_KEY' }] }, 'MISSING_KEY is not set'],
    [{ routes: [{ model: 'a', prefix: 'b/', url }] }, 'exactly one of "model" or "prefix"'],
    [{ routes: [{ prefix: 'b/', url, upstreamModel: 'c' }] }, '"upstreamModel" needs "model"'],
    [{ routes: [{ model: 'a', url: 'ftp://host/v1' }] }, 'routes[0].url'],
    [{ routes: [{ model: 'a', url, type: 'bedrock' }] }, 'routes[0].type'],
    [{ routes: [{ model: 'a', url, temprature: 1 }] }, 'temprature'],
    [{ models: [] }, 'routes'],
  ])('%j', (config, message) => {
    expect(() => providersFromConfig(config, {})).toThrow(GatewayConfigError);
    expect(() => providersFromConfig(config, {})).toThrow(message);
  });

  test('an unreadable or invalid file names the file', () => {
    const bad = path.join(folder, 'bad.json');
    writeFileSync(bad, '{ routes: ');
    expect(() => gatewayProviders({ configPath: bad })).toThrow(`${bad} is not valid JSON`);
    expect(() => gatewayProviders({ configPath: path.join(folder, 'missing.json') })).toThrow('cannot read');
    expect(() => gatewayProviders({ chatCompletionsUrl: 'localhost:11434' })).toThrow('is not an http(s) URL');
  });
});

describe('CLI', () => {
  test('OPENRESPONSES_CHAT_COMPLETIONS_URL/_API_KEY route other models upstream; the legacy endpoint from the environment warns', async () => {
    const { output, url } = await startCli(['--port', '0', '--api-key', 'k'], {
      OPENRESPONSES_CHAT_COMPLETIONS_URL: upstream.baseUrl,
      OPENRESPONSES_CHAT_COMPLETIONS_API_KEY: 'sk-env-key',
      OPENRESPONSES_CHAT_COMPLETIONS_ENDPOINT: '1',
    });
    expect(output).toContain(`Model route: every other model -> ${upstream.baseUrl}\n`);
    expect(output).toMatch(/chat\/completions is on\. It is a legacy compatibility layer/);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'k', maxRetries: 0 });
    const response = await client.responses.create({ model: 'ollama-thinking', input: 'hi' });
    expect(response.output_text).toBe('Hello from the upstream.');
    expect(upstream.received.at(-1)!.headers.authorization).toBe('Bearer sk-env-key');
    const completion = await client.chat.completions.create({
      model: 'openai-text',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Hello from the upstream.');
  });

  test('--chat-completions-url, --config and --chat-completions as flags; a bad config exits 2 with the reason', async () => {
    const file = path.join(folder, 'cli-routes.json');
    writeFileSync(
      file,
      JSON.stringify({ routes: [{ model: 'named', url: upstream.baseUrl, upstreamModel: 'openai-text' }] }),
    );
    const { output, url } = await startCli([
      '--port',
      '0',
      '--open',
      '--chat-completions-url',
      upstream.baseUrl,
      '--config',
      file,
      '--chat-completions',
    ]);
    expect(output).toContain(`Model route: named -> ${upstream.baseUrl}, from ${file}\n`);
    const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual(['openresponses-deterministic', 'named', 'llama3.2']);
    const bad = path.join(folder, 'cli-bad.json');
    writeFileSync(bad, JSON.stringify({ routes: [{ model: 'x', url: upstream.baseUrl, apiKey: 'sk-inline' }] }));
    const failed = runCliToExit(['--port', '0', '--open', '--config', bad]);
    expect(failed.status).toBe(2);
    expect(failed.stderr).toContain('routes[0].apiKey: keys are not written in the configuration');
    expect(failed.stderr).not.toContain('sk-inline');
  });
});

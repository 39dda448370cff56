// The OpenAI-superset ingress profile against the real server on 127.0.0.1: the request shapes the Codex CLI
// sends (namespace, custom and hosted tools, additional_tools, replayed custom calls) are translated for the
// embedded model and lifted back; the spec profile refuses them; spec-shaped requests are read unchanged.
// No served-stream check middleware here: a lifted stream carries custom_tool_call items, which are not spec
// items (the turn's own spec-shaped stream is still checked inside the server: validateOutgoing).
import { decodeSSE } from '@openresponses/events';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type RunningServer, startServer } from '../src/node/index.js';
import { lowerSuperset, OMITTED_TOOLS_FIELD } from '../src/responses/turn/superset.js';

const KEY = 'superset-key-0123456789';
let superset: RunningServer;
let spec: RunningServer;

beforeAll(async () => {
  [superset, spec] = await Promise.all([
    startServer({ apiKeys: [KEY], validateOutgoing: true, warn: () => {} }),
    startServer({ apiKeys: [KEY], validateOutgoing: true, warn: () => {}, ingress: 'spec' }),
  ]);
});
afterAll(async () => {
  await Promise.all([superset?.close(), spec?.close()]);
});

const post = (server: RunningServer, body: unknown) =>
  fetch(`${server.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify(body),
  });

type Event = Record<string, unknown> & { type: string; sequence_number: number };

async function events(server: RunningServer, body: Record<string, unknown>): Promise<Event[]> {
  const response = await post(server, { ...body, stream: true });
  expect(response.status, await response.clone().text()).toBe(200);
  const out: Event[] = [];
  for await (const event of decodeSSE(response.body!)) out.push(event as unknown as Event);
  return out;
}

const doneItems = (stream: Event[]) =>
  stream.filter((e) => e.type === 'response.output_item.done').map((e) => e.item as Record<string, unknown>);

// What Codex 0.169 sends (observed): no instructions, a developer message, namespace and hosted tools, a
// custom freeform tool, client_metadata, prompt_cache_key, store false, encrypted reasoning asked for.
const codexTools = [
  { type: 'function', name: 'shell', description: 'Runs a command', parameters: { type: 'object', properties: {} } },
  {
    type: 'namespace',
    name: 'files',
    description: 'File tools',
    tools: [
      {
        type: 'function',
        name: 'read_file',
        description: 'Reads a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
    ],
  },
  {
    type: 'custom',
    name: 'apply_patch',
    description: 'Applies a patch',
    format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch" /.+/' },
  },
  { type: 'web_search', external_web_access: false },
];

const codexBody = (text: string, extra: Record<string, unknown> = {}) => ({
  model: 'openresponses-deterministic',
  store: false,
  include: ['reasoning.encrypted_content'],
  reasoning: { summary: 'auto' },
  parallel_tool_calls: true,
  prompt_cache_key: 'thread-1',
  client_metadata: { originator: 'codex_exec' },
  tools: codexTools,
  input: [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent.' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  ],
  ...extra,
});

describe('the superset profile (default)', () => {
  test('a namespaced tool is called under its own name and namespace; hosted tools are left out and named', async () => {
    const stream = await events(superset, codexBody('Please read the file README.md'));
    const [call] = doneItems(stream).filter((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'read_file', namespace: 'files', status: 'completed' });
    expect(JSON.parse(call!.arguments as string)).toHaveProperty('path');
    const last = stream.at(-1)!;
    expect(last.type).toBe('response.completed');
    expect(stream.filter((e) => e.type.startsWith('response.') && 'response' in e).length).toBeGreaterThan(1);
    const response = last.response as Record<string, unknown>;
    expect(response.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(response[OMITTED_TOOLS_FIELD]).toEqual(['web_search']);
    expect(response.tools).toEqual(codexTools);
    expect((response.output as Array<Record<string, unknown>>).find((i) => i.type === 'function_call')).toEqual(call);
    // Renumbered from 0 without gaps, whatever was lifted.
    expect(stream.map((e) => e.sequence_number)).toEqual(stream.map((_, i) => i));
  });

  test('a custom tool is called as custom_tool_call with its input, streamed as OpenAI streams it', async () => {
    const stream = await events(superset, codexBody('apply_patch to Main'));
    const [call] = doneItems(stream);
    expect(call).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', input: 'Main' });
    expect(call).not.toHaveProperty('arguments');
    const types = stream.map((e) => e.type);
    expect(types).not.toContain('response.function_call_arguments.delta');
    expect(stream.find((e) => e.type === 'response.custom_tool_call_input.done')).toMatchObject({
      item_id: call!.id,
      input: 'Main',
    });
    expect(types.filter((t) => t === 'response.completed')).toHaveLength(1);
  });

  test('a replayed history of custom and namespaced calls with their outputs is read back (JSON answer too)', async () => {
    const body = codexBody('Please read the file README.md');
    const history = [
      ...(body.input as unknown[]),
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'read_file', namespace: 'files', arguments: '{}' },
      { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch' },
      { type: 'function_call_output', call_id: 'call_1', output: 'hello from the readme' },
      { type: 'custom_tool_call_output', call_id: 'call_2', output: 'patched' },
    ];
    const response = await post(superset, { ...body, input: history });
    const json = (await response.json()) as Record<string, unknown>;
    expect(response.status, JSON.stringify(json)).toBe(200);
    const [message] = json.output as Array<{ type: string; content: Array<{ text: string }> }>;
    expect(message!.type).toBe('message');
    expect(message!.content[0]!.text).toContain('read_file returned hello from the readme');
    expect(message!.content[0]!.text).toContain('apply_patch returned patched');
  });

  test('additional_tools items add their tools to what the model sees', async () => {
    const stream = await events(superset, {
      model: 'openresponses-deterministic',
      input: [
        {
          type: 'additional_tools',
          role: 'developer',
          tools: [
            {
              type: 'namespace',
              name: 'crm',
              description: 'CRM',
              tools: [{ type: 'function', name: 'lookup_customer' }],
            },
          ],
        },
        { type: 'message', role: 'user', content: 'lookup_customer Ada' },
      ],
    });
    expect(doneItems(stream)[0]).toMatchObject({ type: 'function_call', name: 'lookup_customer', namespace: 'crm' });
  });

  test.each([
    [{ tools: [{ type: 'namespace', name: 'ns' }] }, 'tools[0].tools'],
    [{ tools: [{ type: 'namespace', tools: [{ type: 'function', name: 'f' }] }] }, 'tools[0].name'],
    [{ tools: [{ type: 'namespace', name: 'ns', tools: [{ type: 'web_search' }] }] }, 'tools[0].tools[0].type'],
    [{ tools: [{ type: 'custom', description: 'no name' }] }, 'tools[0].name'],
    [{ tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } }, 'tool_choice.type'],
    [{ input: [{ type: 'custom_tool_call', call_id: 'c', name: 'x', input: 7 }] }, 'input[0].input'],
    [{ input: [{ type: 'additional_tools', role: 'developer' }] }, 'input[0].tools'],
    [{ tools: [{ type: 'acme_unknown' }] }, 'tools[0].type'],
  ])('a malformed superset shape is a 400 naming its field: %j', async (fields, param) => {
    const response = await post(superset, { model: 'openresponses-deterministic', input: 'hi', ...fields });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({
      type: 'invalid_request',
      param,
      message: expect.stringContaining(param),
    });
  });
});

describe('the spec profile', () => {
  test('refuses the first superset tool, naming it', async () => {
    const response = await post(spec, codexBody('hi'));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({ param: 'tools[1].type' });
  });
});

describe('translation', () => {
  test('spec-shaped bodies are read as they are (the same object: nothing can differ)', () => {
    const bodies: unknown[] = [
      { model: 'm', input: 'hi' },
      { model: 'm', input: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', name: 'f' }] },
      { input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }], tool_choice: 'required' },
      {
        input: [{ type: 'function_call_output', call_id: 'c', output: 'x' }],
        tool_choice: { type: 'function', name: 'f' },
      },
      null,
      'not an object',
      [],
    ];
    for (const body of bodies) {
      const lowered = lowerSuperset(body);
      expect(lowered.body).toBe(body);
      expect(lowered.superset).toBeUndefined();
    }
  });

  test('flattened names fit every family rule, never collide, and map back', () => {
    const long = 'n'.repeat(60);
    const { body, superset: turn } = lowerSuperset({
      tools: [
        { type: 'function', name: 'a__b' },
        { type: 'namespace', name: 'a', description: '', tools: [{ type: 'function', name: 'b' }] },
        {
          type: 'namespace',
          name: long,
          description: '',
          tools: [
            { type: 'function', name: 'x' },
            { type: 'function', name: 'y' },
          ],
        },
        { type: 'namespace', name: 'mcp.server', description: '', tools: [{ type: 'custom', name: 'tool.v2' }] },
        { type: 'custom', name: 'b' },
      ],
    });
    const names = (body as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toHaveLength(6);
    expect(new Set(names).size).toBe(6);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(names[0]).toBe('a__b');
    expect(turn!.declared.get(names[1]!)).toEqual({ kind: 'function', name: 'b', namespace: 'a' });
    expect(turn!.declared.get(names[3]!)).toEqual({ kind: 'function', name: 'y', namespace: long });
    expect(turn!.declared.get(names[4]!)).toEqual({ kind: 'custom', name: 'tool.v2', namespace: 'mcp.server' });
    expect(turn!.declared.get(names[5]!)).toEqual({ kind: 'custom', name: 'b' });
  });
});

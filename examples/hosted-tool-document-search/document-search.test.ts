// The hosted tool end to end on the real server and client, both validating with the registry.
import { createClient } from '@openresponses/client';
import { DeterministicModel } from '@openresponses/server';
import { startServer, type RunningServer } from '@openresponses/server/node';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DocumentSearchModel, registry } from './document-search.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    providers: [new DocumentSearchModel(), new DeterministicModel()],
    registry,
    validateOutgoing: true,
    warn: () => {},
  });
});
afterAll(() => server.close());

test('the vendor tool and its item validate, stream, and round-trip through a follow-up request', async () => {
  const client = createClient({ baseURL: `${server.url}/v1`, registry, validate: 'exact' });
  const tools = [{ type: 'acme:document_search' as const, index: 'handbook' }];
  const stream = await client.responses.stream({
    model: 'acme-search',
    input: 'What is the leave policy?',
    tools: tools as never,
  });
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  const first = await stream.finalResponse();
  expect(types).toContain('response.output_item.added');
  expect(first.tools).toEqual([{ type: 'acme:document_search', index: 'handbook' }]);
  const call = first.output[0] as unknown as { type: string; results: Array<{ title: string }> };
  expect(call.type).toBe('acme:document_search_call');
  expect(call.results.map((r) => r.title)).toEqual(['Leave policy']);

  // Follow-up with previous_response_id: the server's history carries the vendor item.
  const followUp = await client.responses.create({
    model: 'acme-search',
    previous_response_id: first.id,
    input: 'And remote work?',
    tools: tools as never,
  });
  expect(followUp.output.at(-1)).toMatchObject({
    type: 'message',
    content: [{ text: 'From the documents: Employees get 25 days of paid leave a year.' }],
  });

  // Follow-up with the full history: the vendor item is sent back as input and validated by the registry.
  const replay = await client.responses.create({
    model: 'acme-search',
    input: [
      { type: 'message', role: 'user', content: 'What is the leave policy?' },
      ...(first.output as never[]),
      { type: 'message', role: 'user', content: 'Thanks.' },
    ],
    tools: tools as never,
    store: false,
  });
  expect(replay.output.at(-1)).toMatchObject({
    content: [{ text: 'From the documents: Employees get 25 days of paid leave a year.' }],
  });
});

test('a malformed vendor item is refused with its path', async () => {
  const response = await fetch(`${server.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'acme-search',
      input: [
        { type: 'acme:document_search_call', id: 'dsc_1', status: 'completed', query: 'q', results: [{ title: 1 }] },
      ],
    }),
  });
  expect(response.status).toBe(400);
  expect(((await response.json()) as { error: { param: string } }).error.param).toBe('input[0].results[0].title');
});

test('without the registry, the same vendor tool is refused by the spec-exact server', async () => {
  const plain = await startServer({ providers: [new DocumentSearchModel()], warn: () => {} });
  try {
    const response = await fetch(`${plain.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'acme-search',
        input: 'x',
        tools: [{ type: 'acme:document_search', index: 'handbook' }],
      }),
    });
    expect(response.status).toBe(400);
  } finally {
    await plain.close();
  }
});

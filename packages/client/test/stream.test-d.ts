// The client's public streams narrow by `type` in a plain `for await`, as openai-node's do: the unknown
// member of the event union cannot take a spec event's type.
import type { VendorEvent } from '@openresponses/events';
import type { ResponseOutputTextDeltaStreamingEvent, UnknownType } from '@openresponses/types';
import { expectTypeOf, test } from 'vitest';
import type { ClientResponse, OpenResponsesClient, ResponsesSession, ResponseStream } from '../src/index.js';

test('for await over client.responses.stream() narrows on event.type', async () => {
  const client = {} as OpenResponsesClient;
  const stream = await client.responses.stream({ model: 'm', input: 'hi' });
  expectTypeOf(stream).toEqualTypeOf<ResponseStream>();
  for await (const event of stream) {
    if (event.type === 'response.output_text.delta') {
      expectTypeOf(event).toEqualTypeOf<ResponseOutputTextDeltaStreamingEvent>();
      expectTypeOf(event.delta).toEqualTypeOf<string>();
    }
    if (event.type === 'acme:trace') expectTypeOf(event).toEqualTypeOf<VendorEvent>();
    // @ts-expect-error: an event's type is a spec type, a vendor `slug:name` or an unknown one, not any string
    const plain: 'response.output_text.delta' | `${string}:${string}` | UnknownType = 'response.future';
    void plain;
  }
  const streamed = await client.responses.create({ model: 'm', input: 'hi', stream: true });
  for await (const event of streamed)
    if (event.type === 'response.output_text.done') expectTypeOf(event.text).toEqualTypeOf<string>();
});

test("a WebSocket session's turn streams narrow the same way; responses carry output_text", async () => {
  const session = {} as ResponsesSession;
  for await (const event of session.create({ model: 'm', input: 'hi' }))
    if (event.type === 'response.output_text.delta') expectTypeOf(event.delta).toEqualTypeOf<string>();
  expectTypeOf(await session.send('hi')).toEqualTypeOf<ClientResponse>();
  expectTypeOf((await session.send('hi')).output_text).toEqualTypeOf<string>();
  const client = {} as OpenResponsesClient;
  expectTypeOf((await client.responses.create({ model: 'm', input: 'hi' })).output_text).toEqualTypeOf<string>();
  expectTypeOf((await client.responses.retrieve('resp_1')).output_text).toEqualTypeOf<string>();
});

import { expectTypeOf, test } from 'vitest';
import type {
  Forward,
  ItemField,
  ItemParam,
  OpaqueMember,
  UnknownMember,
  ResponseOutputTextDeltaStreamingEvent,
  StreamingEvent,
  StreamingEventByType,
  StreamingEventType,
} from '../src/index.js';
import type { LATEST_SPEC_VERSION, SPEC_VERSION, SPEC_VERSIONS, STREAMING_EVENT_TYPES } from '../src/index.js';
import type * as V1 from '../src/generated/2026-01-15/index.gen.js';

test('streaming events are a discriminated union narrowed by type', () => {
  expectTypeOf<
    StreamingEventByType<'response.output_text.delta'>
  >().toEqualTypeOf<ResponseOutputTextDeltaStreamingEvent>();
  expectTypeOf<(typeof STREAMING_EVENT_TYPES)[number]>().toEqualTypeOf<StreamingEventType>();
  const narrow = (event: StreamingEvent) => (event.type === 'response.output_text.delta' ? event.delta : undefined);
  expectTypeOf(narrow).returns.toEqualTypeOf<string | undefined>();
});

test('input items: the message variants are told apart by role', () => {
  type UserContent = Extract<ItemParam, { type: 'message'; role: 'user' }>['content'];
  expectTypeOf<UserContent>().toMatchTypeOf<string | unknown[]>();
  expectTypeOf<Extract<ItemField, { type: 'function_call' }>['arguments']>().toEqualTypeOf<string>();
});

test('forward-compatible unions admit unknown members; exact ones do not', () => {
  expectTypeOf<UnknownMember>().toMatchTypeOf<Forward.ItemField>();
  expectTypeOf<UnknownMember>().not.toMatchTypeOf<ItemField>();
  expectTypeOf<UnknownMember>().toMatchTypeOf<Forward.StreamingEvent>();
  // Unknown members still are opaque members: code that takes any member takes them.
  expectTypeOf<UnknownMember>().toMatchTypeOf<OpaqueMember>();
});

test('narrowing by type on a forward-compatible union reaches the member, not the unknown one', () => {
  const role = (item: Forward.ItemField) => (item.type === 'message' ? item.role : undefined);
  expectTypeOf(role).returns.toEqualTypeOf<'user' | 'assistant' | 'system' | 'developer' | undefined>();
  const rest = (item: Forward.ItemField) => {
    switch (item.type) {
      case 'message':
      case 'function_call':
      case 'function_call_output':
      case 'reasoning':
      case 'compaction':
        return undefined;
      default:
        return item;
    }
  };
  expectTypeOf(rest).returns.toEqualTypeOf<UnknownMember | undefined>();
  // The other direction: with an absorbing `type: string` member, narrowing would reach nothing.
  const absorbed = (item: ItemField | OpaqueMember) => (item.type === 'message' ? item.role : undefined);
  expectTypeOf(absorbed).returns.toEqualTypeOf<unknown>();
});

test('versions are pinned side by side', () => {
  // The root export follows the manifest's latest version, whichever that is.
  expectTypeOf<typeof SPEC_VERSION>().toEqualTypeOf<typeof LATEST_SPEC_VERSION>();
  expectTypeOf<typeof V1.SPEC_VERSION>().toEqualTypeOf<'2026-01-15'>();
  expectTypeOf<'2026-01-15'>().toMatchTypeOf<(typeof SPEC_VERSIONS)[number]>();
  // 2026-04-24 added compaction items; 2026-01-15 has none.
  expectTypeOf<Extract<V1.ItemField, { type: 'compaction' }>>().toBeNever();
  expectTypeOf<Extract<ItemField, { type: 'compaction' }>['encrypted_content']>().toEqualTypeOf<string>();
});

// How a Responses turn becomes a Messages request (toAnthropicRequest, a pure function): the model
// generation table for reasoning, the sampling rules Anthropic enforces, content blocks and turn order.
import type { ItemField } from '@openresponses/types';
import { describe, expect, test } from 'vitest';
import { modelRequest } from './model-request.js';
import { ResponsesError, toAnthropicRequest, type ModelRequest } from '../src/index.js';

const request = modelRequest;

const convert = (upstreamModel: string, over: Partial<ModelRequest> = {}) =>
  toAnthropicRequest(request(over), { upstreamModel });

const rejection = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ResponsesError);
    const { type, code, param } = error as ResponsesError;
    return { type, code, param };
  }
  throw new Error('expected a rejection');
};

describe('reasoning.effort by model generation', () => {
  test.each([
    ['claude-opus-4-6', 'high', { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }],
    ['claude-sonnet-4-6', 'low', { thinking: { type: 'adaptive' }, output_config: { effort: 'low' } }],
    ['claude-opus-4-7', 'xhigh', { thinking: { type: 'adaptive' }, output_config: { effort: 'xhigh' } }],
    ['claude-opus-5', 'medium', { thinking: { type: 'adaptive' }, output_config: { effort: 'medium' } }],
    [
      'claude-sonnet-4-5-20250929',
      'low',
      { thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 2048 + 8192 },
    ],
    ['claude-haiku-4-5', 'high', { thinking: { type: 'enabled', budget_tokens: 16_384 }, max_tokens: 16_384 + 8192 }],
    ['claude-3-7-sonnet-20250219', 'medium', { thinking: { type: 'enabled', budget_tokens: 8192 } }],
    ['a-custom-name', 'medium', { thinking: { type: 'adaptive' }, output_config: { effort: 'medium' } }],
  ])('%s with effort %s', (model, effort, expected) => {
    expect(convert(model, { reasoning: { effort } })).toMatchObject(expected);
  });

  test('models that cannot think get no thinking; effort none turns it off', () => {
    expect(convert('claude-3-5-haiku-latest', { reasoning: { effort: 'high' } }).thinking).toBeUndefined();
    expect(convert('claude-sonnet-4-5', { reasoning: { effort: 'none' } }).thinking).toBeUndefined();
    expect(convert('claude-opus-4-6', {}).thinking).toBeUndefined();
  });

  test('a route can say how a name it maps thinks', () => {
    const body = toAnthropicRequest(request({ reasoning: { effort: 'low' } }), {
      upstreamModel: 'my-claude',
      thinking: 'budget',
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  test('a budget is kept below max_output_tokens, and refused when no budget fits', () => {
    expect(convert('claude-sonnet-4-5', { reasoning: { effort: 'high' }, maxOutputTokens: 4000 })).toMatchObject({
      max_tokens: 4000,
      thinking: { type: 'enabled', budget_tokens: 3999 },
    });
    expect(
      rejection(() => convert('claude-sonnet-4-5', { reasoning: { effort: 'high' }, maxOutputTokens: 900 })),
    ).toEqual({
      type: 'invalid_request',
      code: 'unsupported_parameter',
      param: 'max_output_tokens',
    });
  });
});

describe('sampling settings Anthropic refuses are refused here, naming the parameter', () => {
  test.each([
    ['claude-sonnet-4-5', { reasoning: { effort: 'low' }, temperature: 0.2 }, 'temperature'],
    ['claude-sonnet-4-5', { reasoning: { effort: 'low' }, topP: 0.5 }, 'top_p'],
    ['claude-opus-4-1', { temperature: 0.2, topP: 0.9 }, 'top_p'],
    [
      'claude-sonnet-4-5',
      {
        reasoning: { effort: 'low' },
        tools: [{ type: 'function', name: 'f', parameters: null, strict: null }],
        toolPolicy: { mode: 'required', allowed: ['f'] },
      },
      'tool_choice',
    ],
  ] as Array<[string, Partial<ModelRequest>, string]>)('%s %j', (model, over, param) => {
    expect(rejection(() => convert(model, over))).toMatchObject({ type: 'invalid_request', param });
  });

  test('what the generation accepts is sent', () => {
    expect(convert('claude-3-5-sonnet-latest', { temperature: 0.2, topP: 0.9 })).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
    });
    expect(
      convert('claude-3-7-sonnet-latest', { reasoning: { effort: 'low' }, temperature: 1, topP: 0.95 }),
    ).toMatchObject({
      temperature: 1,
      top_p: 0.95,
    });
  });
});

describe('content and turns', () => {
  const user = (content: unknown[]): ItemField =>
    ({ type: 'message', id: 'u', status: 'completed', role: 'user', content }) as unknown as ItemField;

  test('images by URL and data URL, PDF and text files become blocks; other files are refused', () => {
    const body = convert('claude-sonnet-4-5', {
      items: [
        user([
          { type: 'input_text', text: 'Look' },
          { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'auto' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
          { type: 'input_file', file_data: `data:text/plain;base64,${btoa('notes')}` },
          { type: 'input_file', file_url: 'https://example.com/b.pdf' },
        ]),
      ],
    });
    expect(body.messages[0]!.content).toEqual([
      { type: 'text', text: 'Look' },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'document', title: 'a.pdf', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' } },
      { type: 'document', source: { type: 'url', url: 'https://example.com/b.pdf' } },
    ]);
    expect(
      rejection(() =>
        convert('claude-sonnet-4-5', {
          items: [user([{ type: 'input_file', file_data: 'data:application/zip;base64,UEsDBA==' }])],
        }),
      ),
    ).toMatchObject({ type: 'invalid_request', code: 'unsupported_content' });
  });

  test('a conversation that starts with the assistant gets a user turn first; json_object is refused', () => {
    const body = convert('claude-sonnet-4-5', {
      items: [
        {
          type: 'message',
          id: 'a',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello!', annotations: [] }],
        } as unknown as ItemField,
      ],
    });
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(
      rejection(() =>
        convert('claude-sonnet-4-5', { text: { format: { type: 'json_object' } } as unknown as ModelRequest['text'] }),
      ),
    ).toMatchObject({ param: 'text.format' });
  });

  test('json_schema becomes output_config.format; tool_choice none keeps the tools; safety_identifier is metadata.user_id', () => {
    const body = convert('claude-sonnet-4-5', {
      text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' } } } as ModelRequest['text'],
      tools: [{ type: 'function', name: 'f', parameters: null }],
      toolPolicy: { mode: 'none', allowed: [] },
      safetyIdentifier: 'user-42',
    });
    expect(body).toMatchObject({
      output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
      tools: [{ name: 'f' }],
      tool_choice: { type: 'none' },
      metadata: { user_id: 'user-42' },
    });
  });

  test('hosted tools are refused: an Anthropic upstream runs function tools only', () => {
    expect(rejection(() => convert('claude-sonnet-4-5', { hostedTools: [{ type: 'acme:search' }] }))).toMatchObject({
      code: 'unsupported_tool',
      param: 'tools',
    });
  });
});

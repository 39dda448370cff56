import * as z from 'zod/v4';
import { defineFamily, routeProviderOptions } from '../family.js';
import { ChatCompletionsProvider } from './provider.js';

/**
 * Chat Completions routes (`type: "chat-completions"`, the default): besides the shared fields,
 * `maxTokensField` (which field carries `max_output_tokens`) and `nativeAllowedTools` (send
 * `allowed_tools` as OpenAI's `tool_choice: {type: "allowed_tools"}`).
 */
export const chatCompletionsFamily = defineFamily({
  type: 'chat-completions',
  options: {
    maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
    nativeAllowedTools: z.boolean().optional(),
  },
  create: (route, access) =>
    new ChatCompletionsProvider({
      ...routeProviderOptions(route, access),
      maxTokensField: route.maxTokensField,
      nativeAllowedTools: route.nativeAllowedTools,
    }),
});

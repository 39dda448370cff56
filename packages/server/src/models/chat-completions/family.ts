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
    /** The upstream field that carries `max_output_tokens`: `max_tokens` (default) or `max_completion_tokens` (OpenAI's reasoning models). */
    maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
    /** Send `allowed_tools` as OpenAI's `tool_choice: {type: "allowed_tools"}` instead of sending only the allowed tools (default false). */
    nativeAllowedTools: z.boolean().optional(),
  },
  create: (route, access) =>
    new ChatCompletionsProvider({
      ...routeProviderOptions(route, access),
      maxTokensField: route.maxTokensField,
      nativeAllowedTools: route.nativeAllowedTools,
    }),
});

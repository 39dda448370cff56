import { readFileSync } from 'node:fs';
import { type ServerLimits, upstreamLimitsOf } from '../limits.js';
import { anthropicFromEnvironment } from '../models/anthropic-messages/family.js';
import { responsesFromEnvironment } from '../models/open-responses/family.js';
import { ChatCompletionsProvider } from '../models/chat-completions/provider.js';
import { geminiFromEnvironment } from '../models/gemini/family.js';
import { DeterministicModel } from '../models/deterministic.js';
import type { ModelProvider } from '../models/provider.js';
import { GatewayConfigError, providersFromConfig } from '../models/routes.js';
import { nodeFetch } from './http-fetch.js';

/** What `gatewayProviders` takes: the catch-all upstream, the routing file and the environment its keys come from. */
export interface GatewayOptions {
  /** Base URL (ending in `/v1`) of a Chat Completions upstream that serves every model nothing else serves, by its own name. */
  chatCompletionsUrl?: string;
  /** The catch-all upstream's API key. */
  chatCompletionsApiKey?: string;
  /** A JSON routing file (see `GatewayConfig`); its keys are read from `env`. */
  configPath?: string;
  /** Where route keys (`apiKeyEnv`) and the Anthropic, Gemini and Responses (`OPENRESPONSES_RESPONSES_URL`) variables are read from (default: an empty environment; the CLI passes `process.env`). */
  env?: Record<string, string | undefined>;
  /** The bounds of every upstream call (the upstream fields of `ServerLimits`; defaults for those not given). */
  limits?: Partial<ServerLimits>;
}

/**
 * The providers of a gateway, in the order they are tried: the embedded model, the configuration's
 * routes, then the catch-all upstream. Throws a `GatewayConfigError` naming what is wrong.
 */
export function gatewayProviders(options: GatewayOptions): ModelProvider[] {
  const limits = upstreamLimitsOf(options.limits);
  const providers: ModelProvider[] = [new DeterministicModel()];
  if (options.configPath) {
    let text: string;
    try {
      text = readFileSync(options.configPath, 'utf8');
    } catch (error) {
      throw new GatewayConfigError(`cannot read ${options.configPath}: ${(error as Error).message}`, { cause: error });
    }
    let config: unknown;
    try {
      config = JSON.parse(text);
    } catch (error) {
      throw new GatewayConfigError(`${options.configPath} is not valid JSON: ${(error as Error).message}`, {
        cause: error,
      });
    }
    try {
      providers.push(...providersFromConfig(config, options.env ?? {}, nodeFetch, limits));
    } catch (error) {
      if (error instanceof GatewayConfigError)
        throw new GatewayConfigError(`${options.configPath}: ${error.message}`, { cause: error });
      throw error;
    }
  }
  try {
    const anthropic = anthropicFromEnvironment(options.env ?? {}, nodeFetch, limits);
    if (anthropic) providers.push(anthropic);
    const gemini = geminiFromEnvironment(options.env ?? {}, nodeFetch, limits);
    if (gemini) providers.push(gemini);
    // Every other name, to a Responses server (before a Chat Completions catch-all, when both are set).
    const responses = responsesFromEnvironment(options.env ?? {}, nodeFetch, limits);
    if (responses) providers.push(responses);
  } catch (error) {
    throw new GatewayConfigError((error as Error).message, { cause: error });
  }
  if (options.chatCompletionsUrl) {
    if (!URL.canParse(options.chatCompletionsUrl) || !/^https?:$/.test(new URL(options.chatCompletionsUrl).protocol))
      throw new GatewayConfigError(
        `the Chat Completions URL '${options.chatCompletionsUrl}' is not an http(s) URL (expected e.g. http://127.0.0.1:11434/v1)`,
      );
    try {
      providers.push(
        new ChatCompletionsProvider({
          baseUrl: options.chatCompletionsUrl,
          apiKey: options.chatCompletionsApiKey,
          fetch: nodeFetch,
          limits,
        }),
      );
    } catch (error) {
      throw new GatewayConfigError(
        `--chat-completions-api-key (OPENRESPONSES_CHAT_COMPLETIONS_API_KEY): ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  return providers;
}

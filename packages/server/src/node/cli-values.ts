// The command line's value parsers (each returns the value or throws InvalidArgumentError, which commander
// reports as one line naming the flag or variable) and the banner's list of routes.
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Option } from 'commander';
import { createSealer, parseEncryptionKeys, type EncryptionKey } from '../responses/sealed.js';
import { ANTHROPIC_URL } from '../models/anthropic-messages/provider.js';
import { GEMINI_URL } from '../models/gemini/provider.js';
import { withoutCredentials } from './store-url.js';

/** A value parser: `parse` returns the value or throws InvalidArgumentError, which commander reports with the flag or variable. */
export const parser =
  <T>(what: string, parse: (text: string) => T | undefined) =>
  (text: string): T => {
    const value = parse(text);
    if (value === undefined) throw new InvalidArgumentError(`Expected ${what}.`);
    return value;
  };
export const integer = (min: number, max: number) => (text: string) =>
  /^\d+$/.test(text.trim()) && Number(text) >= min && Number(text) <= max ? Number(text) : undefined;
export const nonNegative = (text: string) => (text.trim() !== '' && Number(text) >= 0 ? Number(text) : undefined);
/**
 * API keys: repeatable and comma-separated (the environment holds one list); a blank key is refused, not dropped: an
 * empty `OPENRESPONSES_API_KEYS=` (an unset shell variable) or `--api-key ''` would otherwise start an open server.
 */
export const apiKeyList = (text: string, previous: string[] = []) => {
  const keys = text.split(',').map((item) => item.trim());
  if (keys.some((key) => key === ''))
    throw new InvalidArgumentError(
      'Expected a non-blank key (blank keys would leave the server open; use --open for that).',
    );
  return [...previous, ...keys];
};
export const encryptionKeys = (text: string, previous: EncryptionKey[] = []) => {
  try {
    const keys = [...previous, ...parseEncryptionKeys(text)];
    createSealer(keys); // checks every key before the server starts
    return keys;
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};
/**
 * An upstream's base URL: http(s) with a path. A bare `http://host:port` is the usual slip (the API root of an
 * OpenAI-compatible server ends in /v1), which clients would only meet later as 404s on /chat/completions.
 */
export const upstreamBaseUrl = (text: string) => {
  const url = URL.canParse(text.trim()) ? new URL(text.trim()) : undefined;
  if (!url || !/^https?:$/.test(url.protocol)) throw new InvalidArgumentError('Expected an http(s) URL ending in /v1.');
  if (url.pathname === '/' || url.pathname === '')
    throw new InvalidArgumentError(
      `Expected the API root, with its path: ${url.origin}/v1 for an OpenAI-compatible server (Ollama, vLLM, llama.cpp).`,
    );
  return text.trim();
};
/** An API root: any http(s) URL (the Anthropic and Gemini providers add their own version path). */
export const httpUrl = (text: string) => {
  if (!URL.canParse(text.trim()) || !/^https?:$/.test(new URL(text.trim()).protocol))
    throw new InvalidArgumentError('Expected an http(s) URL.');
  return text.trim();
};
export const storeUrl = (text: string) => {
  if (text === '' || text === 'memory' || text === 'memory://' || /^rediss?(\+cluster)?:\/\/./.test(text)) return text;
  throw new InvalidArgumentError('Expected memory, redis://host:port/db or redis+cluster://host:port[,host:port…].');
};
/** The value commander quotes in an error about a flag that may carry a key or a URL with credentials. */
export const SECRET_VALUE =
  /(option '--(?:api-key|encryption-key|chat-completions-api-key|chat-completions-url|anthropic-api-key|anthropic-url|gemini-api-key|gemini-url|responses-url|responses-api-key|store|metrics-key|admin-key) [^']*' (?:argument|value) )'[^']*'/;
/** `maxBodyBytes` -> `max-body-bytes` (flag) and `OPENRESPONSES_MAX_BODY_BYTES` (environment). */
export const kebab = (field: string) => field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The gateway families' flags beside their environment variables (read by `familyEnvironment`). */
export const familyOptions = (): Option[] => [
  new Option('--anthropic-api-key <KEY>', 'serve every claude-* model from Anthropic with this key').env(
    'OPENRESPONSES_ANTHROPIC_API_KEY',
  ),
  new Option('--anthropic-url <URL>', `Anthropic's API root (default ${ANTHROPIC_URL})`)
    .env('OPENRESPONSES_ANTHROPIC_URL')
    .argParser(httpUrl),
  new Option('--gemini-api-key <KEY>', 'serve every gemini-* model from the Gemini API with this key').env(
    'OPENRESPONSES_GEMINI_API_KEY',
  ),
  new Option('--gemini-url <URL>', `the Gemini API root (default ${GEMINI_URL})`)
    .env('OPENRESPONSES_GEMINI_URL')
    .argParser(httpUrl),
  new Option(
    '--responses-url <URL>',
    'serve every other model name from this Responses server (base URL ending in /v1), before --chat-completions-url',
  )
    .env('OPENRESPONSES_RESPONSES_URL')
    .argParser(upstreamBaseUrl),
  new Option('--responses-api-key <KEY>', 'bearer key for that Responses server').env(
    'OPENRESPONSES_RESPONSES_API_KEY',
  ),
];

/** The settings that decide how model names are routed. */
export interface RouteSettings {
  scenarios?: string;
  config?: string;
  anthropicApiKey?: string;
  anthropicUrl?: string;
  geminiApiKey?: string;
  geminiUrl?: string;
  responsesUrl?: string;
  responsesApiKey?: string;
  chatCompletionsUrl?: string;
}

/**
 * The families' flags as the environment variables `gatewayProviders` reads (commander already took each flag
 * or, failing that, its variable): a flag given on the command line wins over the variable.
 */
export function familyEnvironment(values: RouteSettings): Record<string, string> {
  const entries: Array<[string, string | undefined]> = [
    ['OPENRESPONSES_ANTHROPIC_API_KEY', values.anthropicApiKey],
    ['OPENRESPONSES_ANTHROPIC_URL', values.anthropicUrl],
    ['OPENRESPONSES_GEMINI_API_KEY', values.geminiApiKey],
    ['OPENRESPONSES_GEMINI_URL', values.geminiUrl],
    ['OPENRESPONSES_RESPONSES_URL', values.responsesUrl],
    ['OPENRESPONSES_RESPONSES_API_KEY', values.responsesApiKey],
  ];
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** One line per way a model name is served, in the order they are tried (the routing file was read and checked above). */
export function modelRoutes(values: RouteSettings): string[] {
  const routes = values.scenarios ? [`the scenarios of ${values.scenarios}`] : [];
  routes.push('openresponses-deterministic -> the embedded model');
  if (values.config) {
    const config = JSON.parse(readFileSync(values.config, 'utf8')) as {
      routes: Array<{ model?: string; prefix?: string; url: string; type?: string }>;
    };
    for (const route of config.routes)
      routes.push(
        `${route.model ?? `${route.prefix}*`} -> ${withoutCredentials(route.url)}${route.type ? ` (${route.type})` : ''}, from ${values.config}`,
      );
  }
  // The order gatewayProviders tries them in: Anthropic, Gemini, then the catch-alls.
  if (values.anthropicApiKey)
    routes.push(`claude-* -> ${withoutCredentials(values.anthropicUrl || ANTHROPIC_URL)} (anthropic)`);
  if (values.geminiApiKey) routes.push(`gemini-* -> ${withoutCredentials(values.geminiUrl || GEMINI_URL)} (gemini)`);
  if (values.responsesUrl)
    routes.push(`every other model -> ${withoutCredentials(values.responsesUrl)} (open-responses)`);
  else if (values.chatCompletionsUrl)
    routes.push(`every other model -> ${withoutCredentials(values.chatCompletionsUrl)}`);
  return routes;
}

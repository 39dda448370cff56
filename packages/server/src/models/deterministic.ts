import type { FunctionToolParam, ItemField } from '@openresponses/types';
import { LOGPROBS_INCLUDE, type ModelPart, type ModelProvider, type ModelRequest } from './provider.js';
import { itemText, lastUserMessage, lastUserText } from './item-text.js';
import { certain, TokenBudget } from './deterministic-tokens.js';
import { argumentsFor, clip, formatted } from './schema-instance.js';

/** One thing the embedded model decided to say, before it is streamed as parts within the token budget. */
type Step =
  | { type: 'reasoning'; summary: string[]; content: string }
  /** `delayMs` paces the deltas (the `[slow]` trigger). */
  | { type: 'message'; text: string; phase: 'final_answer'; delayMs?: number }
  | { type: 'refusal'; text: string }
  | { type: 'function_call'; name: string; arguments: string }
  | { type: 'error'; code: string; message: string };

/** The embedded deterministic model's name. */
export const DETERMINISTIC_MODEL = 'openresponses-deterministic';

/**
 * Markers in the latest user message that steer the embedded model, so every branch of the protocol
 * can be reached in tests and demos without a network or a key.
 */
export const TRIGGERS = {
  /** Fail with a `model_error` (an `error` event and `response.failed` when streaming). */
  fail: '[fail]',
  /** Emit a reasoning item (summary and content) before answering; also on when `reasoning.effort` is set. */
  think: '[think]',
  /** Answer at length (about 200 words), to run out of `max_output_tokens`. */
  long: '[long]',
  /** Answer with a refusal content part. */
  refuse: '[refuse]',
  /** Stream the answer slowly (25 ms between deltas), for cancellation tests and demos. */
  slow: '[slow]',
} as const;

/**
 * The embedded default model: deterministic, no network, no key. It answers from the conversation
 * (it recalls facts stated in earlier turns: "my name is …", "my favorite … is …", "remember …"),
 * follows `respond with "…"` instructions, calls the request's function tools when the user mentions
 * them (or when `tool_choice` requires it), in parallel when allowed, and reads tool outputs back.
 */
export class DeterministicModel implements ModelProvider {
  readonly name = 'deterministic';
  readonly genAiProvider = 'openresponses';
  /** Every token is chosen with certainty, so each has logprob 0. */
  readonly reportsLogprobs = true;
  readonly contextWindow: number;

  constructor(options: { contextWindow?: number } = {}) {
    this.contextWindow = options.contextWindow ?? 128_000;
  }

  listModels(): string[] {
    return [DETERMINISTIC_MODEL];
  }

  supports(model: string): boolean {
    return model === DETERMINISTIC_MODEL || model.startsWith(`${DETERMINISTIC_MODEL}-`);
  }

  /**
   * The parts, also as a synchronous iterable: nothing waits between them (but the `[slow]` trigger's
   * pacing), so the turn reads them without a promise and a generator resumption each.
   */
  generate(request: ModelRequest): AsyncIterable<ModelPart> {
    const steps = plan(request);
    const delayMs = steps.find((step): step is Extract<Step, { type: 'message' }> => step.type === 'message')?.delayMs;
    if (delayMs) return paced(parts(steps, request), delayMs);
    return new PlannedParts(steps, request);
  }
}

/** The parts of planned steps, synchronously or not (methods on the prototype: nothing made per turn but this). */
class PlannedParts implements AsyncIterable<ModelPart>, Iterable<ModelPart> {
  constructor(
    private readonly steps: Step[],
    private readonly request: ModelRequest,
  ) {}

  // An array's iterator: a generator's resumption a part cost ~1k instructions (4 parts a JSON turn).
  [Symbol.iterator](): Iterator<ModelPart> {
    return parts(this.steps, this.request)[Symbol.iterator]();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ModelPart> {
    yield* parts(this.steps, this.request);
  }
}

/** The `[slow]` trigger: `delayMs` before each delta of the answer. */
async function* paced(parts: Iterable<ModelPart>, delayMs: number): AsyncGenerator<ModelPart> {
  for (const part of parts) {
    if (part.type === 'text-delta') await new Promise((resolve) => setTimeout(resolve, delayMs));
    yield part;
  }
}

/**
 * The planned steps as parts, all at once (nothing waits between them): word by word when a client watches
 * (whole texts otherwise), one token per word or per 16 characters of arguments, until `max_output_tokens` runs
 * out (then `finish` with `length`, leaving the open item for the turn runner to end as incomplete).
 */
function parts(steps: Step[], request: ModelRequest): ModelPart[] {
  const out: ModelPart[] = [];
  const tokens = new TokenBudget(request);
  const withLogprobs = request.include.includes(LOGPROBS_INCLUDE);
  let index = 0;
  for (const step of steps) {
    const id = String(index++);
    switch (step.type) {
      case 'error':
        out.push({ type: 'error', code: step.code, message: step.message });
        return out;
      case 'reasoning': {
        out.push({ type: 'reasoning-start', id });
        for (const text of step.summary) {
          out.push({ type: 'reasoning-summary-start', id });
          const { deltas, fits } = tokens.deltasOf(text, true);
          for (const delta of deltas) out.push({ type: 'reasoning-summary-delta', id, delta });
          if (!fits) return end(out, tokens);
          out.push({ type: 'reasoning-summary-end', id });
        }
        const { deltas, fits } = tokens.deltasOf(step.content, true);
        for (const delta of deltas) out.push({ type: 'reasoning-delta', id, delta });
        if (!fits) return end(out, tokens);
        out.push({ type: 'reasoning-end', id });
        break;
      }
      case 'message':
      case 'refusal': {
        const kind = step.type === 'message' ? 'text' : 'refusal';
        out.push(
          step.type === 'message' ? { type: 'text-start', id, phase: step.phase } : { type: 'refusal-start', id },
        );
        const { deltas, fits } = tokens.deltasOf(step.text, false);
        for (const delta of deltas) {
          if (kind === 'text' && withLogprobs)
            out.push({ type: 'text-delta', id, delta, logprobs: certain(delta, request) });
          else out.push({ type: `${kind}-delta`, id, delta });
        }
        if (!fits) return end(out, tokens);
        out.push({ type: `${kind}-end`, id });
        break;
      }
      case 'function_call': {
        out.push({ type: 'function-call-start', id, name: step.name });
        const chunks: string[] = [];
        for (let i = 0; i < step.arguments.length; i += 16) chunks.push(step.arguments.slice(i, i + 16));
        const { deltas, fits } =
          request.stream || !tokens.spend(chunks.length, false)
            ? tokens.deltasWithin(chunks, false)
            : { deltas: chunks.length > 0 ? [step.arguments] : [], fits: true };
        for (const delta of deltas) out.push({ type: 'function-call-delta', id, delta });
        if (!fits) return end(out, tokens);
        out.push({ type: 'function-call-end', id });
        break;
      }
    }
  }
  const called = steps.some((step) => step.type === 'function_call');
  out.push({ type: 'finish', reason: called ? 'tool_calls' : 'stop', usage: tokens.usage() });
  return out;
}

/** `out` ended where `max_output_tokens` ran out. */
function end(out: ModelPart[], tokens: TokenBudget): ModelPart[] {
  out.push(tokens.outOfTokens());
  return out;
}

function plan(request: ModelRequest): Step[] {
  const steps: Step[] = [];
  const last = request.items.at(-1);
  const userText = lastUserText(request.items);
  if (userText.includes(TRIGGERS.fail))
    return [
      {
        type: 'error',
        code: 'model_failed',
        message: `The embedded model failed on request (the ${TRIGGERS.fail} trigger).`,
      },
    ];

  const effort = request.reasoning?.effort;
  if (userText.includes(TRIGGERS.think) || (effort && effort !== 'none')) {
    steps.push({
      type: 'reasoning',
      summary: [
        `The user wrote ${quote(userText, 60)}; I answer from the conversation${request.tools.length ? ' and the available tools' : ''}.`,
      ],
      content: `Reading the latest message, then checking ${request.items.length} context item(s) for facts to use.`,
    });
  }

  // After tool outputs, read them back instead of calling again.
  if (last?.type === 'function_call_output') {
    const outputs = trailing(request.items, 'function_call_output');
    const calls = new Map(
      request.items
        .filter((i) => i.type === 'function_call')
        .map((c) => [(c as { call_id: string }).call_id, (c as { name: string }).name]),
    );
    const parts = outputs.map(
      (o) =>
        `${calls.get((o as { call_id: string }).call_id) ?? 'the tool'} returned ${typeof (o as { output: unknown }).output === 'string' ? (o as { output: string }).output : JSON.stringify((o as { output: unknown }).output)}`,
    );
    steps.push({
      type: 'message',
      text: formatted(request, `Here is what I found: ${parts.join('; ')}.`),
      phase: 'final_answer',
    });
    return steps;
  }

  const calls = chooseToolCalls(request, userText);
  if (calls.length > 0) return [...steps, ...calls];

  if (userText.includes(TRIGGERS.refuse))
    return [...steps, { type: 'refusal', text: 'I can’t help with that request.' }];
  steps.push({
    type: 'message',
    text: formatted(request, answer(request, userText)),
    phase: 'final_answer',
    ...(userText.includes(TRIGGERS.slow) ? { delayMs: 25 } : {}),
  });
  return steps;
}

function answer(request: ModelRequest, userText: string): string {
  const directive = [
    request.instructions ?? '',
    ...request.items
      .filter((i) => i.type === 'message' && ['system', 'developer'].includes((i as { role: string }).role))
      .map(itemText),
  ]
    .map((text) => /(?:respond|reply|answer) (?:only )?with ["“']([^"”']+)["”']/i.exec(text)?.[1])
    .find(Boolean);
  if (directive) return directive;
  if (userText.includes(TRIGGERS.long)) {
    return Array.from({ length: 200 }, (_, i) => `word${i + 1}`).join(' ');
  }
  const asksName = /what(?:'s| is) my name/i.test(userText);
  const favorite = /what(?:'s| is) my favou?rite ([\w-]+)/i.exec(userText);
  const asksRemembered = /what did i ask you to remember|what should you remember/i.test(userText);
  // The whole conversation is searched for facts only when the question asks for one (a few ms per MiB).
  if (asksName || favorite || asksRemembered) {
    const facts = recall(request.items);
    if (asksName && facts.name) return `Your name is ${facts.name}.`;
    if (favorite && facts.favorites.has(favorite[1]!.toLowerCase()))
      return `Your favorite ${favorite[1]} is ${facts.favorites.get(favorite[1]!.toLowerCase())}.`;
    if (asksRemembered && facts.remembered.length) return `You asked me to remember: ${facts.remembered.join('; ')}.`;
  }
  const images =
    lastUserMessage(request.items)?.content?.filter((p) => (p as { type: string }).type === 'input_image').length ?? 0;
  if (images > 0) return `I see ${images} image${images > 1 ? 's' : ''}. You wrote: ${quote(userText, 200)}.`;
  if (!userText) return 'Hello! How can I help?';
  return `You said: ${quote(userText, 400)}.`;
}

interface Facts {
  name?: string;
  favorites: Map<string, string>;
  remembered: string[];
}

// Fact values are at most 200 characters: bounded, the lazy values stay linear. Unbounded, a value that
// failed at its end (a `?` or a line break before any `.`) was rescanned from every later `my favorite … is`
// or `remember` in the message: quadratic in the message's length (bench/reliability.bench.ts).
const FAVORITE = /my favou?rite ([\w-]+) is ([\p{L}\d' -]{1,200}?)(?:[.!,;]|$)/giu;
const REMEMBER = /remember (?:that )?(.{1,200}?)(?:[.!]|$)/i;

/** Facts the user stated anywhere in the conversation, latest first wins. */
function recall(items: ItemField[]): Facts {
  const facts: Facts = { favorites: new Map(), remembered: [] };
  for (const item of items) {
    if (item.type !== 'message' || (item as { role: string }).role !== 'user') continue;
    const text = itemText(item);
    const name = /my name is ([\p{L}][\p{L}'-]*)/iu.exec(text);
    if (name) facts.name = name[1];
    for (const match of text.matchAll(FAVORITE)) facts.favorites.set(match[1]!.toLowerCase(), match[2]!.trim());
    const remember = REMEMBER.exec(text);
    if (remember && !/what did i ask you to remember/i.test(text)) facts.remembered.push(remember[1]!.trim());
  }
  return facts;
}

function chooseToolCalls(request: ModelRequest, userText: string): Step[] {
  const { toolPolicy } = request;
  if (toolPolicy.mode === 'none' || toolPolicy.allowed.length === 0) return [];
  const tools = request.tools.filter((t) => toolPolicy.allowed.includes(t.name));
  let chosen: FunctionToolParam[];
  if (toolPolicy.forced) chosen = tools.filter((t) => t.name === toolPolicy.forced);
  else {
    const lower = userText.toLowerCase();
    chosen = tools.filter((t) => mentions(lower, t.name));
    if (chosen.length === 0 && toolPolicy.mode === 'required') chosen = tools.slice(0, 1);
  }
  if (!request.parallelToolCalls) chosen = chosen.slice(0, 1);
  if (request.maxToolCalls !== null) chosen = chosen.slice(0, request.maxToolCalls);
  return chosen.map((tool) => ({
    type: 'function_call' as const,
    name: tool.name,
    arguments: JSON.stringify(argumentsFor(tool, userText)),
  }));
}

/** A tool is mentioned when its name, or a distinctive word of it (`weather` in `get_weather`), appears. */
function mentions(text: string, name: string): boolean {
  if (text.includes(name.toLowerCase())) return true;
  const words = name
    .toLowerCase()
    .split(/[_\-\s]+|(?=[A-Z])/)
    .filter((w) => w.length > 3 && !['get', 'set', 'list', 'fetch', 'call', 'tool'].includes(w));
  return words.some((w) => new RegExp(`\\b${w}`, 'i').test(text));
}

function trailing(items: ItemField[], type: string): ItemField[] {
  const out: ItemField[] = [];
  for (let i = items.length - 1; i >= 0 && items[i]!.type === type; i--) out.unshift(items[i]!);
  return out;
}

function quote(text: string, max: number): string {
  return `"${clip(text, max)}"`;
}

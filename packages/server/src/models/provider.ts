import type { FunctionToolParam, ItemField } from '@openresponses/types';

/** Which tools the model may call, after `tool_choice` and `allowed_tools` are applied. */
export interface ToolPolicy {
  mode: 'auto' | 'required' | 'none';
  /** Names the model may call (a subset of the request's tools); one name when a function is forced. */
  allowed: string[];
  /** A single function the model must call, when `tool_choice` names one. */
  forced?: string;
}

export interface ModelRequest {
  model: string;
  instructions: string | null;
  /** The whole context in order: previous input, previous output, this input (with compactions expanded). */
  items: ItemField[];
  tools: FunctionToolParam[];
  /** Tools of other types the request declared (hosted vendor tools, accepted through a registry). */
  hostedTools: Array<{ type: string; [key: string]: unknown }>;
  toolPolicy: ToolPolicy;
  parallelToolCalls: boolean;
  reasoning: { effort?: string | null; summary?: string | null } | null;
  maxOutputTokens: number | null;
  /** Aborted when the client goes away (made on first read: read it from the request object, not from a spread copy). */
  readonly signal?: AbortSignal;
}

/** What a model produces, step by step; the server turns steps into spec events. */
export type ModelStep =
  | { type: 'reasoning'; summary: string[]; content?: string }
  /** `delayMs` paces the deltas (a provider simulating a slow model; the embedded model's `[slow]`). */
  | { type: 'message'; text: string; phase?: 'commentary' | 'final_answer'; delayMs?: number }
  | { type: 'refusal'; text: string }
  | { type: 'function_call'; name: string; arguments: string; call_id?: string }
  /** Any other output item, such as a hosted tool's vendor item (`acme:document_search_call`); streamed as added, then done. */
  | { type: 'item'; item: { type: string; id?: string; [key: string]: unknown } }
  /** A vendor streaming event (`acme:progress`), sent while the response is in progress. */
  | { type: 'vendor_event'; event: { type: `${string}:${string}`; [key: string]: unknown } }
  /** The model failed: the response fails with a `model_error`. */
  | { type: 'error'; code: string; message: string };

/** A source of model output. The embedded deterministic model is one; an upstream adapter is another. */
export interface ModelProvider {
  readonly name: string;
  /** Whether this provider serves `model`. */
  supports(model: string): boolean;
  generate(request: ModelRequest): AsyncIterable<ModelStep>;
  /** Tokens of context the model accepts (for `truncation`). */
  readonly contextWindow: number;
}

/** Word-ish tokens: what the embedded model counts for usage, budgets and the context window. */
/** Whitespace-separated words (what `/\S+/g` matches, counted without building the matches). */
export function countTokens(text: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = isSpace(text.charCodeAt(i));
    if (!space && !inWord) count++;
    inWord = !space;
  }
  return count;
}

/** The characters of the regular-expression class `\s`. */
function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return (
    code === 160 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

export function itemText(item: ItemField): string {
  const record = item as Record<string, unknown>;
  if (Array.isArray(record.content)) {
    return (record.content as Array<Record<string, unknown>>)
      .map((part) => (typeof part.text === 'string' ? part.text : typeof part.refusal === 'string' ? part.refusal : ''))
      .join(' ');
  }
  if (typeof record.arguments === 'string') return `${String(record.name)} ${record.arguments}`;
  if (typeof record.output === 'string') return record.output;
  if (Array.isArray(record.summary))
    return (record.summary as Array<{ text?: string }>).map((s) => s.text ?? '').join(' ');
  return '';
}

/** The latest user message of a context, for providers that answer it. */
export function lastUserMessage(items: readonly ItemField[]): (ItemField & { content?: unknown[] }) | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.type === 'message' && (item as { role: string }).role === 'user')
      return item as ItemField & { content?: unknown[] };
  }
  return undefined;
}

/** The text of the latest user message ('' when there is none). */
export function lastUserText(items: readonly ItemField[]): string {
  const message = lastUserMessage(items);
  return message ? itemText(message).trim() : '';
}

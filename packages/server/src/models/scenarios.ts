// Scenario files: a scriptable test double. A JSON file lists scenarios; each matches requests (by model,
// text of the last user message, turn index, tool outputs) and scripts the answer (output items in order,
// usage, how it ends, HTTP-level errors with headers, pacing and chunk sizes) or replays recorded parts
// exactly. This is the provider that serves them; the format and its validation are scenario-file.ts.
import type { Annotation } from '@openresponses/types';
import { ResponsesError, type ErrorType, ERROR_STATUS } from '../errors.js';
import type { FinishReason, ModelPart, ModelProvider, ModelRequest } from './provider.js';
import { contextTokens, countTokens, lastUserText } from './item-text.js';
import { type ParsedScenarioFile, type Scenario, type ScenarioOutput, parseScenarioFile } from './scenario-file.js';

/** Serves the scenarios of a file, first match first; a request no scenario matches is a clear 400. */
export class ScenarioProvider implements ModelProvider {
  readonly name = 'scenarios';
  readonly genAiProvider = 'openresponses';
  readonly contextWindow = 1_000_000;
  private readonly file: ParsedScenarioFile;
  private readonly used = new Map<Scenario, number>();

  constructor(file: unknown) {
    this.file = parseScenarioFile(file);
  }

  supports(model: string): boolean {
    return model === this.file.model || this.file.scenarios.some((s) => s.match.model === model);
  }

  listModels(): string[] {
    return [...new Set([this.file.model, ...this.file.scenarios.flatMap((s) => s.match.model ?? [])])];
  }

  async *generate(request: ModelRequest): AsyncGenerator<ModelPart> {
    const scenario = this.select(request);
    const { delayMs } = scenario.pacing;
    const parts = scenario.parts ?? scriptedParts(scenario, request);
    for (const part of parts) {
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (request.signal?.aborted) return;
      yield part;
    }
  }

  private select(request: ModelRequest): Scenario {
    const facts = matchFactsOf(request);
    const scenario = this.file.scenarios.find((s) => this.matches(s, facts));
    if (!scenario)
      throw new ResponsesError(
        'invalid_request',
        'no_matching_scenario',
        `No scenario matches this request (model ${facts.model}, turn ${facts.turn}, tool outputs: ${facts.toolOutputs}); scenarios: ${this.file.scenarios.map((s) => s.name).join(', ')}.`,
        null,
      );
    this.used.set(scenario, (this.used.get(scenario) ?? 0) + 1);
    if (scenario.error) {
      const { status, type, code, message, param, headers } = scenario.error;
      throw new ResponsesError(type ?? errorTypeOf(status), code, message, param, status, { headers });
    }
    return scenario;
  }

  private matches(scenario: Scenario, facts: ReturnType<typeof matchFactsOf>): boolean {
    const { match } = scenario;
    if (scenario.times !== undefined && (this.used.get(scenario) ?? 0) >= scenario.times) return false;
    if ((match.model ?? this.file.model) !== facts.model) return false;
    if (match.text !== undefined && !facts.text.includes(match.text)) return false;
    if (match.turn !== undefined && facts.turn !== match.turn) return false;
    if (match.toolOutputs !== undefined && facts.toolOutputs !== match.toolOutputs) return false;
    return true;
  }
}

/** What scenarios match on, as one request shows it (record mode writes the same facts). */
export function matchFactsOf(request: ModelRequest) {
  return {
    model: request.model,
    text: lastUserText(request.items),
    /** 1 for the first user message of a conversation, 2 for the second, … */
    turn: request.items.filter((item) => item.type === 'message' && (item as { role?: string }).role === 'user').length,
    toolOutputs: request.items.at(-1)?.type === 'function_call_output',
  };
}

function errorTypeOf(status: number): ErrorType {
  const byStatus = (Object.keys(ERROR_STATUS) as ErrorType[]).find((type) => ERROR_STATUS[type] === status);
  return byStatus ?? (status >= 500 ? 'server_error' : 'invalid_request');
}

/** The parts of a scripted answer: each output in order, deltas by chunk size or word, then the end. */
function scriptedParts(scenario: Scenario, request: ModelRequest): ModelPart[] {
  const parts: ModelPart[] = [];
  const chunk = (text: string) => chunks(text, scenario.pacing.chunkSize);
  const failAfter = typeof scenario.end === 'object' && 'failed' in scenario.end ? scenario.end.failed : undefined;
  let deltas = 0;
  let outputTokens = 0;
  let reasoningTokens = 0;
  /** Pushes a delta part; false once the scripted failure point is reached. */
  const delta = (part: ModelPart & { delta: string }, reasoning = false) => {
    if (failAfter?.afterDeltas !== undefined && deltas >= failAfter.afterDeltas) return false;
    deltas++;
    const tokens = countTokens(part.delta);
    outputTokens += tokens;
    if (reasoning) reasoningTokens += tokens;
    parts.push(part);
    return true;
  };
  const fail = () => parts.push({ type: 'error', code: failAfter!.code, message: failAfter!.message });

  for (const [index, output] of (scenario.output ?? []).entries()) {
    const id = String(index);
    if (!emitOutput(output, id, parts, chunk, delta, scenario.pacing.chunkSize)) {
      fail();
      return parts;
    }
  }
  if (failAfter) {
    fail();
    return parts;
  }
  const inputTokens = contextTokens(request);
  const usage = scenario.usage
    ? {
        inputTokens: scenario.usage.input_tokens,
        outputTokens: scenario.usage.output_tokens,
        reasoningTokens: scenario.usage.reasoning_tokens,
        cachedInputTokens: scenario.usage.cached_tokens,
      }
    : { inputTokens, outputTokens, reasoningTokens };
  const reason: FinishReason =
    scenario.end === 'completed'
      ? (scenario.output ?? []).some((o) => o.type === 'function_call')
        ? 'tool_calls'
        : 'stop'
      : 'incomplete' in scenario.end
        ? scenario.end.incomplete === 'content_filter'
          ? 'content_filter'
          : 'length'
        : 'error';
  parts.push({ type: 'finish', reason, usage });
  return parts;
}

type DeltaSink = (part: ModelPart & { delta: string }, reasoning?: boolean) => boolean;

/** Pushes one output's parts; false when the scripted failure point was reached inside it. */
function emitOutput(
  output: ScenarioOutput,
  id: string,
  parts: ModelPart[],
  chunk: (text: string) => string[],
  delta: DeltaSink,
  chunkSize: number | undefined,
): boolean {
  switch (output.type) {
    case 'message': {
      const content = output.content ?? [{ text: output.text ?? '' }];
      for (const [index, part] of content.entries()) {
        const kind = 'refusal' in part ? 'refusal' : 'text';
        if (index === 0)
          parts.push(kind === 'text' ? { type: 'text-start', id, phase: output.phase } : { type: 'refusal-start', id });
        else parts.push({ type: 'message-part-start', id, kind });
        const text = 'refusal' in part ? part.refusal : part.text;
        for (const piece of chunk(text)) if (!delta({ type: `${kind}-delta`, id, delta: piece })) return false;
        if ('text' in part)
          for (const annotation of part.annotations ?? [])
            parts.push({ type: 'text-annotation', id, annotation: annotation as unknown as Annotation });
      }
      parts.push({ type: 'refusal' in content.at(-1)! ? 'refusal-end' : 'text-end', id });
      return true;
    }
    case 'reasoning': {
      parts.push({ type: 'reasoning-start', id });
      for (const summary of output.summary) {
        parts.push({ type: 'reasoning-summary-start', id });
        for (const piece of chunk(summary))
          if (!delta({ type: 'reasoning-summary-delta', id, delta: piece }, true)) return false;
        parts.push({ type: 'reasoning-summary-end', id });
      }
      for (const piece of chunk(output.content ?? ''))
        if (!delta({ type: 'reasoning-delta', id, delta: piece }, true)) return false;
      parts.push({ type: 'reasoning-end', id });
      return true;
    }
    case 'function_call': {
      parts.push({ type: 'function-call-start', id, name: output.name, callId: output.call_id });
      const args = typeof output.arguments === 'string' ? output.arguments : JSON.stringify(output.arguments);
      for (const piece of chunks(args, chunkSize ?? 16))
        if (!delta({ type: 'function-call-delta', id, delta: piece })) return false;
      parts.push({ type: 'function-call-end', id });
      return true;
    }
    case 'event':
      parts.push({ type: 'vendor-event', event: output.event });
      return true;
    default:
      parts.push({ type: 'item', item: output });
      return true;
  }
}

/** A text as deltas: fixed-size chunks, or word by word (spaces kept with the following word). */
function chunks(text: string, size: number | undefined): string[] {
  if (!size) return text.match(/\s*\S+\s*$|\s*\S+/g) ?? (text ? [text] : []);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

import type { AnyStreamingEvent } from '@openresponses/events';
import type { FunctionCall, FunctionToolParam, ItemParam, ResponseResource } from '@openresponses/types';
import * as z from 'zod/v4';
import type { CreateBody, OpenResponsesClient } from './client.js';
import { OpenResponsesError } from './errors.js';
import { functionCalls, sanitizeReplayedHistory, toolOutputs } from './history.js';
import { outputToInput } from './output-to-input.js';

/** A function tool the agent loop can run: its arguments are validated before `execute` sees them. */
export interface AgentTool<Args = unknown> {
  /** The function name the model calls. */
  name: string;
  /** What the tool does, for the model. */
  description?: string;
  /** A Zod schema (converted to JSON Schema for the model) or a JSON Schema object. */
  parameters: z.ZodType<Args> | Record<string, unknown>;
  /** Runs the tool; the result (JSON-encoded unless a string) becomes the call's `function_call_output`. */
  execute(args: Args, context: { call: FunctionCall; signal?: AbortSignal }): unknown;
}

/** Declares a tool with a Zod schema, so `execute` receives typed, validated arguments. */
export function defineTool<Args>(tool: {
  name: string;
  description?: string;
  parameters: z.ZodType<Args>;
  execute(args: Args, context: { call: FunctionCall; signal?: AbortSignal }): unknown;
}): AgentTool<Args> {
  return tool;
}

/** What `runAgent` takes. */
export interface RunAgentOptions {
  /** The client the steps are sent with. */
  client: OpenResponsesClient;
  /** The first turn's input. */
  input: string | ItemParam[];
  /** The tools the model may call, run locally. */
  // biome-ignore lint/suspicious/noExplicitAny: tools of different argument types sit in one list
  tools: AgentTool<any>[];
  /** The model to ask (default: the server's default). */
  model?: string;
  /** Instructions sent with every step. */
  instructions?: string;
  /** Most function calls executed over the whole run (default 16); the run stops when the next step would exceed it. */
  maxToolCalls?: number;
  /**
   * How a step continues: `previous_response_id` (default when the server stores responses) or resending
   * the full history (default with `store: false`). A server that answers `previous_response_not_found`
   * is treated as stateless and the run switches to full history.
   */
  continuation?: 'previous_response_id' | 'full_history';
  /** Whether the server stores the steps (`false` implies full-history continuation). */
  store?: boolean;
  /** Other create parameters (temperature, tool_choice, …). */
  body?: Omit<CreateBody, 'input' | 'tools' | 'model' | 'instructions' | 'store' | 'previous_response_id' | 'stream'>;
  /** Cancels the run: the step under way and any tool that reads `context.signal`. */
  signal?: AbortSignal;
  /** Streams every step and calls this for each event (the streaming variant). */
  onEvent?: (event: AnyStreamingEvent, step: number) => void;
}

/** What `runAgent` returns. */
export interface AgentResult {
  /** The last response: the final message, or the step where the run stopped. */
  response: ResponseResource;
  /** Every response of the run, in order. */
  steps: ResponseResource[];
  /** How many function calls were executed. */
  toolCalls: number;
  /** Why the run stopped: a message without calls, the `maxToolCalls` budget, or an incomplete response. */
  stopReason: 'final_message' | 'max_tool_calls' | 'incomplete';
  /** The whole conversation as input items (for a later full-history continuation). */
  history: ItemParam[];
}

/**
 * The function-calling loop: create, run the requested tools (calls of one step run together and are
 * answered in one follow-up), continue, until the model answers without calling tools or the call
 * budget is spent.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const tools = new Map(options.tools.map((tool) => [tool.name, tool as AgentTool<unknown>]));
  const toolParams: FunctionToolParam[] = options.tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description ?? null,
    parameters: jsonSchemaOf(tool.parameters) as FunctionToolParam['parameters'],
    strict: false,
  }));
  const maxToolCalls = options.maxToolCalls ?? 16;
  let continuation = options.continuation ?? (options.store === false ? 'full_history' : 'previous_response_id');
  let history: ItemParam[] =
    typeof options.input === 'string'
      ? [{ type: 'message', role: 'user', content: options.input }]
      : [...options.input];
  let pending: ItemParam[] = history;
  let previousId: string | undefined;
  const steps: ResponseResource[] = [];
  let toolCalls = 0;

  for (;;) {
    const base = {
      ...options.body,
      model: options.model,
      instructions: options.instructions,
      tools: toolParams,
      ...(options.store === undefined ? {} : { store: options.store }),
    };
    let response: ResponseResource;
    try {
      response = await step(
        options,
        continuation === 'previous_response_id' && previousId
          ? { ...base, previous_response_id: previousId, input: pending }
          : { ...base, input: sanitizeReplayedHistory(history) },
        steps.length,
      );
    } catch (error) {
      // A server that keeps no state: continue by resending the history instead.
      if (
        error instanceof OpenResponsesError &&
        error.code === 'previous_response_not_found' &&
        continuation === 'previous_response_id'
      ) {
        continuation = 'full_history';
        continue;
      }
      throw error;
    }
    steps.push(response);
    history = [...history, ...outputToInput(response)];
    const calls = functionCalls(response);
    if (response.status === 'incomplete') return { response, steps, toolCalls, stopReason: 'incomplete', history };
    if (calls.length === 0) return { response, steps, toolCalls, stopReason: 'final_message', history };
    if (toolCalls + calls.length > maxToolCalls)
      return { response, steps, toolCalls, stopReason: 'max_tool_calls', history };
    toolCalls += calls.length;
    const results = await Promise.all(
      calls.map(async (call) => [call.call_id, await runTool(tools, call, options.signal)] as const),
    );
    pending = toolOutputs(calls, Object.fromEntries(results));
    history = [...history, ...pending];
    previousId = response.id;
  }
}

async function step(options: RunAgentOptions, body: CreateBody, index: number): Promise<ResponseResource> {
  if (!options.onEvent) return options.client.responses.create({ ...body, stream: false }, { signal: options.signal });
  const stream = await options.client.responses.stream(body, { signal: options.signal });
  for await (const event of stream) options.onEvent(event, index);
  return stream.finalResponse();
}

/** Runs one call; bad arguments, unknown tools and thrown errors become outputs the model can read. */
async function runTool(
  tools: Map<string, AgentTool<unknown>>,
  call: FunctionCall,
  signal?: AbortSignal,
): Promise<unknown> {
  const tool = tools.get(call.name);
  if (!tool) return `Error: there is no tool named '${call.name}'.`;
  let args: unknown;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return `Error: the arguments are not valid JSON: ${call.arguments.slice(0, 200)}`;
  }
  const problem = checkArguments(tool.parameters, args);
  if (problem) return `Error: invalid arguments for ${call.name}: ${problem}`;
  try {
    const parsed = tool.parameters instanceof z.ZodType ? tool.parameters.parse(args) : args;
    return await tool.execute(parsed, { call, signal });
  } catch (error) {
    return `Error: ${call.name} failed: ${(error as Error).message}`;
  }
}

function jsonSchemaOf(parameters: AgentTool['parameters']): Record<string, unknown> {
  if (!(parameters instanceof z.ZodType)) return parameters;
  const { $schema: _dialect, ...schema } = z.toJSONSchema(parameters) as Record<string, unknown>;
  return schema;
}

/** Zod tools get full validation; JSON Schema tools get the required fields and their primitive types. */
function checkArguments(parameters: AgentTool['parameters'], args: unknown): string | undefined {
  if (parameters instanceof z.ZodType) {
    const result = parameters.safeParse(args);
    return result.success
      ? undefined
      : result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'expected an object';
  const schema = parameters as { required?: string[]; properties?: Record<string, { type?: string }> };
  for (const name of schema.required ?? []) if (!(name in args)) return `missing required property '${name}'`;
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const value = (args as Record<string, unknown>)[name];
    if (value === undefined || !property.type) continue;
    const actual = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    const expected = property.type === 'integer' ? 'number' : property.type;
    if (actual !== expected) return `'${name}' should be ${property.type}, got ${actual}`;
  }
  return undefined;
}

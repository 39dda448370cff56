import { invalidRequest } from '../../errors.js';

// The OpenAI-superset ingress profile: the tool and item shapes real agents (the Codex CLI, the Agents SDK)
// send beyond the spec, lowered here, once, to spec shapes before validation, so every family and the
// embedded model see only function tools and function calls; the model's calls are lifted back to the
// client's shapes on the way out (superset-egress.ts). Shapes as openai-node's `responses` types define them (`NamespaceTool`,
// `CustomTool`, `ResponseCustomToolCall`, `ResponseCustomToolCallOutput`, `ResponseInputItem.AdditionalTools`).
// docs/use-with-codex-and-agents.md holds the table of what is served, translated and refused.

/**
 * How `POST /v1/responses` and WebSocket `response.create` read a request: `openai-superset` (default) also
 * accepts the OpenAI shapes agents send (namespace and custom tools, hosted tool declarations,
 * `additional_tools` items, custom tool calls and outputs, `namespace` on function calls); `spec` accepts
 * exactly the spec's shapes (for conformance testing).
 */
export type IngressProfile = 'openai-superset' | 'spec';

/** What a client declared behind one function name the model sees. */
interface DeclaredTool {
  kind: 'function' | 'custom';
  /** The name as the client declared it (inside its namespace, when it has one). */
  name: string;
  namespace?: string;
}

/** A turn that used superset shapes: what the model's function names stand for, and what was left out. */
export interface SupersetTurn {
  /** The function name the model sees -> the client's tool (only names that differ from a plain function). */
  readonly declared: ReadonlyMap<string, DeclaredTool>;
  /** The request's `tools` as the client sent them (with those of `additional_tools` items), echoed in the response. */
  readonly tools: readonly unknown[] | undefined;
  /** `text.format` was `json_object` (read as a `json_schema` any object satisfies). */
  readonly jsonObject: boolean;
  /** Hosted tool types the server cannot run, left out of what the model sees. */
  readonly omitted: readonly string[];
}

/** The response field that lists the hosted tool types left out of what the model saw. */
export const OMITTED_TOOLS_FIELD = 'openresponses:omitted_tools';

/**
 * Hosted OpenAI tools the server cannot run: declared by agents whatever the backend, so they are left out
 * (and listed in `OMITTED_TOOLS_FIELD`) rather than refused. Prefix match, for dated variants
 * (`web_search_preview_2025_03_11`, `computer_use_preview`).
 */
const HOSTED_TOOL_TYPES = [
  'web_search',
  'file_search',
  'code_interpreter',
  'image_generation',
  'local_shell',
  'shell',
  'apply_patch',
  'computer',
  'mcp',
  'tool_search',
];

const isHosted = (type: unknown): type is string =>
  typeof type === 'string' && HOSTED_TOOL_TYPES.some((hosted) => type === hosted || type.startsWith(`${hosted}_`));

/** The function-name rule every family accepts (Anthropic and Gemini: `[a-zA-Z0-9_-]{1,64}`). */
const NAME_RULE = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;

/**
 * Lowers the superset shapes of a create body to spec shapes (a copy; the body itself when it has none, so a
 * spec-shaped request is read exactly as under the `spec` profile). A malformed superset shape is a 400
 * naming its field.
 */
export function lowerSuperset(raw: unknown): { body: unknown; superset?: SupersetTurn } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { body: raw };
  const body = raw as Record<string, unknown>;
  const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : undefined;
  const input = Array.isArray(body.input) ? (body.input as unknown[]) : undefined;
  const toolChoice = body.tool_choice;
  const hasSupersetTool = tools?.some((tool) => isSupersetTool(tool)) ?? false;
  const hasSupersetItem = input?.some((item) => isSupersetItem(item)) ?? false;
  const jsonObject = isJsonObjectFormat(body.text);
  const hasSupersetChoice =
    !!toolChoice &&
    typeof toolChoice === 'object' &&
    (isHosted(typeType(toolChoice)) || typeType(toolChoice) === 'custom');
  if (!hasSupersetTool && !hasSupersetItem && !hasSupersetChoice && !jsonObject) return { body: raw };

  const names = new Names(tools ?? []);
  const lowered: unknown[] = [];
  const omitted: string[] = [];
  const lowerTools = (list: unknown[], param: string) => {
    for (const [index, tool] of list.entries()) {
      const at = `${param}[${index}]`;
      const type = typeType(tool);
      if (type === 'namespace') lowered.push(...lowerNamespace(tool as Record<string, unknown>, at, names));
      else if (type === 'custom') lowered.push(lowerCustom(tool as Record<string, unknown>, at, names));
      else if (isHosted(type)) {
        if (!omitted.includes(type)) omitted.push(type);
      } else if (isSupersetTool(tool))
        throw invalidRequest(
          'invalid_value',
          `Invalid request: ${at}.type: ${JSON.stringify(type)} is not a tool type this server reads (function, namespace, custom, a hosted OpenAI tool, or a registered vendor tool).`,
          `${at}.type`,
        );
      else lowered.push(tool);
    }
  };
  if (tools) lowerTools(tools, 'tools');

  let items: unknown[] | undefined;
  if (input) {
    items = [];
    for (const [index, item] of input.entries()) {
      const at = `input[${index}]`;
      const record = item as Record<string, unknown>;
      switch (typeType(item)) {
        case 'additional_tools':
          if (!Array.isArray(record.tools))
            throw invalidRequest(
              'invalid_value',
              `Invalid request: ${at}.tools must be an array of tools.`,
              `${at}.tools`,
            );
          lowerTools(record.tools, `${at}.tools`);
          break;
        case 'custom_tool_call': {
          const name = requireString(record, 'name', at);
          const namespace = optionalString(record, 'namespace', at);
          const { type: _type, input: callInput, name: _name, namespace: _ns, caller: _caller, ...rest } = record;
          if (typeof callInput !== 'string')
            throw invalidRequest('invalid_value', `Invalid request: ${at}.input must be a string.`, `${at}.input`);
          items.push({
            ...rest,
            type: 'function_call',
            name: names.flat({ kind: 'custom', name, namespace }),
            arguments: JSON.stringify({ input: callInput }),
          });
          break;
        }
        case 'custom_tool_call_output': {
          const { type: _type, caller: _caller, ...rest } = record;
          items.push({ ...rest, type: 'function_call_output' });
          break;
        }
        case 'function_call': {
          if (record.namespace === undefined || record.namespace === null) {
            items.push(item);
            break;
          }
          const namespace = optionalString(record, 'namespace', at);
          const name = requireString(record, 'name', at);
          const { namespace: _ns, caller: _caller, ...rest } = record;
          items.push({ ...rest, name: names.flat({ kind: 'function', name, namespace }) });
          break;
        }
        default:
          items.push(item);
      }
    }
  }

  const copy: Record<string, unknown> = { ...body };
  if (tools || lowered.length > 0) copy.tools = lowered;
  if (items) copy.input = items;
  if (hasSupersetChoice) copy.tool_choice = lowerToolChoice(toolChoice as Record<string, unknown>, names);
  // JSON mode is a schema that any object satisfies, for every family that takes a schema.
  if (jsonObject)
    copy.text = {
      ...(body.text as object),
      format: { type: 'json_schema', name: 'json_object', schema: JSON_OBJECT, strict: false },
    };
  return {
    body: copy,
    superset: {
      declared: names.declared,
      tools:
        tools || lowered.length > 0
          ? [...(tools ?? []), ...(input ?? []).flatMap((item) => (isAdditionalTools(item) ? item.tools : []))]
          : undefined,
      omitted,
      jsonObject,
    },
  };
}

/** Beyond a function tool: a superset tool, or a type neither the spec nor a vendor (`acme:tool`) names. */
function isSupersetTool(tool: unknown): boolean {
  const type = typeType(tool);
  return typeof type === 'string' && type !== 'function' && !type.includes(':');
}

function isSupersetItem(item: unknown): boolean {
  const type = typeType(item);
  if (type === 'function_call') return (item as { namespace?: unknown }).namespace != null;
  return type === 'additional_tools' || type === 'custom_tool_call' || type === 'custom_tool_call_output';
}

const JSON_OBJECT = { type: 'object' };

function isJsonObjectFormat(text: unknown): boolean {
  return !!text && typeof text === 'object' && typeType((text as { format?: unknown }).format) === 'json_object';
}

const isAdditionalTools = (item: unknown): item is { tools: unknown[] } =>
  typeType(item) === 'additional_tools' && Array.isArray((item as { tools?: unknown }).tools);

function typeType(value: unknown): unknown {
  return value && typeof value === 'object' ? (value as { type?: unknown }).type : undefined;
}

function requireString(record: Record<string, unknown>, field: string, at: string): string {
  const value = record[field];
  if (typeof value !== 'string' || value === '')
    throw invalidRequest(
      'invalid_value',
      `Invalid request: ${at}.${field} must be a non-empty string.`,
      `${at}.${field}`,
    );
  return value;
}

function optionalString(record: Record<string, unknown>, field: string, at: string): string | undefined {
  return record[field] === undefined || record[field] === null ? undefined : requireString(record, field, at);
}

function lowerNamespace(tool: Record<string, unknown>, at: string, names: Names): unknown[] {
  const namespace = requireString(tool, 'name', at);
  if (!Array.isArray(tool.tools) || tool.tools.length === 0)
    throw invalidRequest(
      'invalid_value',
      `Invalid request: ${at}.tools must be a non-empty array of function or custom tools.`,
      `${at}.tools`,
    );
  const about = typeof tool.description === 'string' && tool.description ? `${tool.description}\n\n` : '';
  return tool.tools.map((inner: unknown, index: number) => {
    const innerAt = `${at}.tools[${index}]`;
    const type = typeType(inner);
    const record = inner as Record<string, unknown>;
    if (type === 'custom') return lowerCustom(record, innerAt, names, namespace, about);
    if (type !== 'function')
      throw invalidRequest(
        'invalid_value',
        `Invalid request: ${innerAt}.type must be 'function' or 'custom' inside a namespace, not ${JSON.stringify(type)}.`,
        `${innerAt}.type`,
      );
    const name = requireString(record, 'name', innerAt);
    const description = typeof record.description === 'string' ? record.description : '';
    return {
      type: 'function',
      name: names.flat({ kind: 'function', name, namespace }),
      description: `${about}${description}`.trim() || null,
      parameters: record.parameters ?? null,
      ...(typeof record.strict === 'boolean' ? { strict: record.strict } : {}),
    };
  });
}

/** A custom (freeform) tool as a function of one string, `input`; its grammar goes into the description. */
function lowerCustom(
  tool: Record<string, unknown>,
  at: string,
  names: Names,
  namespace?: string,
  about = '',
): Record<string, unknown> {
  const name = requireString(tool, 'name', at);
  const format = tool.format as { type?: unknown; syntax?: unknown; definition?: unknown } | undefined;
  const grammar =
    format?.type === 'grammar' && typeof format.definition === 'string'
      ? `The input must follow this ${typeof format.syntax === 'string' ? format.syntax : ''} grammar:\n${format.definition}`
      : 'The input is free text.';
  const description = typeof tool.description === 'string' ? tool.description : '';
  return {
    type: 'function',
    name: names.flat({ kind: 'custom', name, namespace }),
    description: `${about}${description}\n\n${grammar}`.trim(),
    parameters: {
      type: 'object',
      properties: { input: { type: 'string', description: grammar } },
      required: ['input'],
      additionalProperties: false,
    },
    strict: true,
  };
}

/** `tool_choice` naming a custom tool names its function; a hosted tool cannot be forced, as it was left out. */
function lowerToolChoice(choice: Record<string, unknown>, names: Names): Record<string, unknown> {
  const type = typeType(choice);
  if (type === 'custom') {
    const name = requireString(choice, 'name', 'tool_choice');
    return { type: 'function', name: names.flat({ kind: 'custom', name }) };
  }
  throw invalidRequest(
    'invalid_value',
    `Invalid request: tool_choice.type: forces the hosted tool '${String(type)}', which this server cannot run (hosted tools are left out of what the model sees).`,
    'tool_choice.type',
  );
}

/**
 * Function names for the model, one per declared tool: `namespace__name` (or the custom tool's own name)
 * when that fits the rule every family accepts and no other tool has it, otherwise a sanitized prefix and a
 * hash of the declaration. The same declaration always gets the same name within a turn (a replayed call
 * and the tool it calls meet); the table maps each back.
 */
class Names {
  readonly declared = new Map<string, DeclaredTool>();
  readonly #byKey = new Map<string, string>();
  readonly #taken = new Set<string>();

  constructor(tools: unknown[]) {
    // Plain function tools keep their names; lowered names avoid them.
    for (const tool of tools)
      if (typeType(tool) === 'function' && typeof (tool as { name?: unknown }).name === 'string')
        this.#taken.add((tool as { name: string }).name);
  }

  flat(tool: DeclaredTool): string {
    const key = `${tool.kind}\u0000${tool.namespace ?? ''}\u0000${tool.name}`;
    const known = this.#byKey.get(key);
    if (known) return known;
    const wanted = tool.namespace === undefined ? tool.name : `${tool.namespace}__${tool.name}`;
    let name = wanted;
    if (!NAME_RULE.test(name) || this.#taken.has(name)) {
      const prefix = wanted.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, MAX_NAME - 10);
      name = `${prefix}_${fnv1a(key)}`;
      for (let n = 2; this.#taken.has(name); n++) name = `${prefix.slice(0, MAX_NAME - 14)}_${fnv1a(key)}_${n}`;
    }
    this.#taken.add(name);
    this.#byKey.set(key, name);
    this.declared.set(name, tool);
    return name;
  }
}

/** 32-bit FNV-1a, as 8 hex digits: a short, stable tag for a declaration whose plain name would not do. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

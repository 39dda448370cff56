import type { SchemaNode, SpecModel } from '../model/schema-model.js';

/**
 * How a schema flows between client and server: `request` schemas are written by clients (request bodies,
 * parameters, WebSocket client messages), `response` schemas are read by them (response bodies, streaming
 * events, WebSocket server messages), `both` are reached from each side. A schema no path reaches counts as
 * `both`: its exported type may be used either way.
 */
export type SchemaFlow = 'request' | 'response' | 'both';

const COMPONENT_REF = '#/components/schemas/';
/** Keys of an OpenAPI path item (and of our `x-openresponses-websocket` extension) that fix the direction below them. */
const DIRECTION_OF_KEY: Record<string, 'request' | 'response'> = {
  requestBody: 'request',
  parameters: 'request',
  clientMessage: 'request',
  responses: 'response',
  serverMessage: 'response',
  errorMessage: 'response',
};

/** Classifies every named schema of `model` by the paths of `document` that reach it. */
export function schemaFlows(document: unknown, model: SpecModel): Map<string, SchemaFlow> {
  const reached = { request: new Set<string>(), response: new Set<string>() };
  const paths = (document as { paths?: unknown }).paths ?? {};
  collectRefs(paths, undefined, reached);
  // The streaming-event union is synthesized from the text/event-stream response body.
  reached.response.add(model.streamingEventUnion);

  const byName = new Map(model.schemas.map((s) => [s.name, s.node]));
  for (const side of ['request', 'response'] as const) {
    const queue = [...reached[side]];
    while (queue.length > 0) {
      const node = byName.get(queue.pop()!);
      if (!node) continue;
      for (const name of refsOf(node))
        if (!reached[side].has(name)) {
          reached[side].add(name);
          queue.push(name);
        }
    }
  }
  const flows = new Map<string, SchemaFlow>();
  for (const { name } of model.schemas) {
    const request = reached.request.has(name);
    const response = reached.response.has(name);
    flows.set(name, request && !response ? 'request' : response && !request ? 'response' : 'both');
  }
  return flows;
}

/** Walks raw path items; a `$ref` under no direction-fixing key counts for both sides. */
function collectRefs(
  value: unknown,
  direction: 'request' | 'response' | undefined,
  reached: Record<'request' | 'response', Set<string>>,
): void {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, direction, reached);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string' && child.startsWith(COMPONENT_REF)) {
      const name = child.slice(COMPONENT_REF.length);
      for (const side of direction ? [direction] : (['request', 'response'] as const)) reached[side].add(name);
    } else collectRefs(child, DIRECTION_OF_KEY[key] ?? direction, reached);
  }
}

function refsOf(node: SchemaNode): string[] {
  switch (node.kind) {
    case 'ref':
      return [node.name];
    case 'array':
      return refsOf(node.items);
    case 'object':
      return [
        ...node.properties.flatMap((p) => refsOf(p.node)),
        ...(typeof node.additional === 'object' ? refsOf(node.additional) : []),
      ];
    case 'union':
      return node.members.flatMap(refsOf);
    default:
      return [];
  }
}

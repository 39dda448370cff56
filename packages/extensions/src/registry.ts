import { createAccumulator, createStreamChecker, type StreamCheckerOptions } from '@openresponses/events';
import { LATEST_SPEC_VERSION, openUnion, validate, versions, type SpecVersion } from '@openresponses/zod';
import * as z from 'zod/v4';
import type { EventDefinition, FieldsDefinition, ItemDefinition, ToolDefinition } from './define.js';

export interface RegistryInput<
  I extends readonly ItemDefinition[],
  E extends readonly EventDefinition[],
  T extends readonly ToolDefinition[],
> {
  items?: I;
  events?: E;
  tools?: T;
  fields?: readonly FieldsDefinition[];
  /** The spec version to extend (default: the latest). */
  version?: SpecVersion;
}

type Members<D extends readonly { schema: z.ZodType }[]> = D[number]['schema'];

/**
 * Extended validators whose inferred types include the registered vendor members, plus the events
 * package's accumulator and checker set up for them. Vendor members that are not registered still pass
 * as opaque members, intact (forward-compatible), and a known type with a broken body still fails.
 */
export function createRegistry<
  const I extends readonly ItemDefinition[] = [],
  const E extends readonly EventDefinition[] = [],
  const T extends readonly ToolDefinition[] = [],
>(input: RegistryInput<I, E, T>) {
  const version = input.version ?? LATEST_SPEC_VERSION;
  const core = versions[version].exact;
  const items = [...(input.items ?? []), ...(input.tools ?? []).map((t) => t.item)] as ItemDefinition[];
  const events = [...(input.events ?? [])] as EventDefinition[];
  const tools = [...(input.tools ?? [])] as ToolDefinition[];
  const duplicate = [...items, ...events, ...tools]
    .map((d) => d.type)
    .find(
      (type, i, all) =>
        all.indexOf(type) !== i && !items.some((item) => item.type === type && tools.some((t) => t.item === item)),
    );
  if (duplicate) throw new Error(`"${duplicate}" is registered twice`);
  const fieldsOf = (name: FieldsDefinition['schema']) =>
    Object.assign({}, ...(input.fields ?? []).filter((f) => f.schema === name).map((f) => f.shape)) as z.ZodRawShape;

  const known = (schema: { _zod: { propValues?: Record<string, Set<unknown>> } }) =>
    [...(schema._zod.propValues?.type ?? [])].filter((v): v is string | null => typeof v === 'string' || v === null);
  const extend = <S extends z.ZodType>(base: S, extra: z.ZodType[]) => {
    // A discriminated union routes a vendor type straight to its schema, so errors point at the right field.
    const members = extra.length === 0 ? base : z.discriminatedUnion('type', [base, ...extra] as never);
    return openUnion(members as z.ZodType, [...known(base as never), ...extra.flatMap((m) => known(m as never))]);
  };

  const ItemField = extend(
    core.ItemFieldSchema,
    items.map((i) => i.schema),
  ) as unknown as z.ZodType<
    | z.output<typeof core.ItemFieldSchema>
    | z.output<Members<I>>
    | z.output<T[number]['item']['schema']>
    | { type: string; [key: string]: unknown }
  >;
  const ItemParam = extend(
    core.ItemParamSchema,
    items.map((i) => i.schema),
  ) as unknown as z.ZodType<
    z.output<typeof core.ItemParamSchema> | z.output<Members<I>> | { type: string; [key: string]: unknown }
  >;
  const Tool = extend(
    core.ToolSchema,
    tools.map((t) => t.param),
  ) as unknown as z.ZodType<
    z.output<typeof core.ToolSchema> | z.output<T[number]['param']> | { type: string; [key: string]: unknown }
  >;
  const ResponsesToolParam = extend(
    core.ResponsesToolParamSchema,
    tools.map((t) => t.param),
  ) as unknown as z.ZodType<
    | z.output<typeof core.ResponsesToolParamSchema>
    | z.output<T[number]['param']>
    | { type: string; [key: string]: unknown }
  >;
  const ResponseResource = core.ResponseResourceSchema.extend({
    output: z.array(ItemField),
    tools: z.array(Tool),
    ...fieldsOf('ResponseResource'),
  });
  const CreateResponseBody = core.CreateResponseBodySchema.extend({
    input: z
      .union([z.string(), z.array(ItemParam)])
      .nullable()
      .optional(),
    tools: z.array(ResponsesToolParam).nullable().optional(),
    ...fieldsOf('CreateResponseBody'),
  });
  // Core events that carry a response or an item carry the extended ones.
  const coreEvents = (core.StreamingEventSchema as unknown as { options: Array<z.ZodObject> }).options.map((option) => {
    const shape = option.shape as Record<string, unknown>;
    if ('response' in shape) return option.extend({ response: ResponseResource });
    if ('item' in shape) return option.extend({ item: ItemField.nullable() });
    return option;
  });
  const StreamingEvent = openUnion(
    z.discriminatedUnion('type', [...coreEvents, ...events.map((e) => e.schema)] as never),
    [...known(core.StreamingEventSchema as never), ...events.map((e) => e.type)],
  ) as unknown as z.ZodType<
    z.output<typeof core.StreamingEventSchema> | z.output<Members<E>> | { type: string; [key: string]: unknown }
  >;

  const folds = Object.fromEntries(events.filter((e) => e.fold).map((e) => [e.type, e.fold!]));
  const eventSchemas = new Map<string, z.ZodType>(events.map((e) => [e.type, e.schema]));
  const validateVendorEvent = (event: Record<string, unknown>) => {
    const schema = eventSchemas.get(String(event.type));
    if (!schema) return undefined;
    const result = validate(schema, event);
    return result.success ? undefined : result.issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ');
  };

  return {
    version,
    schemas: { ItemField, ItemParam, Tool, ResponsesToolParam, ResponseResource, CreateResponseBody, StreamingEvent },
    /** An accumulator that folds the registered vendor events. */
    createAccumulator: () => createAccumulator({ folds }),
    /** A stream checker that validates registered vendor events and folds them. */
    createStreamChecker: (
      options: Omit<StreamCheckerOptions, 'accumulator' | 'validateVendorEvent' | 'eventSchema'> = {},
    ) => createStreamChecker({ ...options, accumulator: { folds }, validateVendorEvent, eventSchema: StreamingEvent }),
    validateVendorEvent,
  };
}

/** What `createRegistry` returns; servers and clients accept one to validate and fold vendor members. */
export type Registry = ReturnType<typeof createRegistry>;

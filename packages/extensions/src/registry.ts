import {
  type Accumulator,
  createAccumulator,
  createStreamChecker,
  type StreamChecker,
  type StreamCheckerOptions,
} from '@openresponses/events';
import type * as Core from '@openresponses/types';
import type { UnknownMember } from '@openresponses/types';
import { LATEST_SPEC_VERSION, openUnion, validate, versions, type SpecVersion } from '@openresponses/zod';
import * as z from 'zod/v4';
import type { EventDefinition, FieldsDefinition, ItemDefinition, ToolDefinition } from './define.js';

/** What `createRegistry` takes: the vendor definitions to add to one spec version. */
export interface RegistryInput<
  I extends readonly ItemDefinition[],
  E extends readonly EventDefinition[],
  T extends readonly ToolDefinition[],
> {
  /** Vendor items (`defineItem`). */
  items?: I;
  /** Vendor streaming events (`defineEvent`). */
  events?: E;
  /** Hosted vendor tools (`defineTool`), each with the item its calls produce. */
  tools?: T;
  /** Vendor fields on core schemas (`defineFields`). */
  fields?: readonly FieldsDefinition[];
  /** The spec version to extend (default: the latest). */
  version?: SpecVersion;
}

type Output<S> = S extends { _zod: { output: infer O } } ? O : never;
/** The registered vendor items (`defineItem`s and the items of `defineTool`s), as parsed. */
export type VendorItemOf<I extends readonly ItemDefinition[], T extends readonly ToolDefinition[]> =
  | Output<I[number]['schema']>
  | Output<T[number]['item']['schema']>;

/**
 * The extended validators. Their types are declared here, not inferred from the Zod expressions, which
 * would spell out every core schema of every version (hundreds of KB of declarations, 10^5 type
 * instantiations per consumer). Core members come from `@openresponses/types` (the latest version);
 * unknown members are `UnknownMember`, so narrowing by `type` reaches the registered member.
 */
export interface RegistrySchemas<Item, Tool, Event> {
  ItemField: z.ZodType<Core.ItemField | Item | UnknownMember>;
  ItemParam: z.ZodType<Core.ItemParam | Item | UnknownMember>;
  Tool: z.ZodType<Core.Tool | Tool | UnknownMember>;
  ResponsesToolParam: z.ZodType<Core.ResponsesToolParam | Tool | UnknownMember>;
  ResponseResource: z.ZodType<
    Omit<Core.ResponseResource, 'output' | 'tools'> & {
      output: Array<Core.ItemField | Item | UnknownMember>;
      tools: Array<Core.Tool | Tool | UnknownMember>;
    }
  >;
  CreateResponseBody: z.ZodType<
    Omit<Core.CreateResponseBody, 'input' | 'tools'> & {
      input?: string | Array<Core.ItemParam | Item | UnknownMember> | null;
      tools?: Array<Core.ResponsesToolParam | Tool | UnknownMember> | null;
    }
  >;
  StreamingEvent: z.ZodType<Core.StreamingEvent | Event | UnknownMember>;
}

/** What `createRegistry` returns; servers and clients accept one to validate and fold vendor members. */
export interface Registry<
  I extends readonly ItemDefinition[] = readonly ItemDefinition[],
  E extends readonly EventDefinition[] = readonly EventDefinition[],
  T extends readonly ToolDefinition[] = readonly ToolDefinition[],
> {
  /** The spec version extended. */
  version: SpecVersion;
  /** The core schemas with the vendor members and fields added (classic Zod, forward-compatible). */
  schemas: RegistrySchemas<VendorItemOf<I, T>, Output<T[number]['param']>, Output<E[number]['schema']>>;
  /** An accumulator that folds the registered vendor events. */
  createAccumulator(): Accumulator;
  /** A stream checker for the registry's spec version that validates registered vendor events and folds them. */
  createStreamChecker(
    options?: Omit<StreamCheckerOptions, 'accumulator' | 'validateVendorEvent' | 'eventSchema' | 'specVersion'>,
  ): StreamChecker;
  /** Validates a registered vendor event: undefined when valid or not registered, else the problems. */
  validateVendorEvent(event: Record<string, unknown>): string | undefined;
  /**
   * Validates a payload with one of the extended schemas (`validate` of `@openresponses/zod`: the issue
   * nearest the cause first, paths like `output[0].type`). The client calls this for a registry's payloads,
   * so a client bundle without a registry carries no Zod.
   */
  validate(
    schema: keyof RegistrySchemas<unknown, unknown, unknown>,
    value: unknown,
  ):
    | {
        /** The payload is valid. */
        success: true;
      }
    | {
        /** The payload is not valid. */
        success: false;
        /** What is wrong, the issue nearest the cause first. */
        issues: Array<{
          /** Where (`output[0].type`; empty for the payload itself). */
          path: string;
          /** What is wrong there. */
          message: string;
          /** Zod's issue code (`invalid_type`, `invalid_union`, …). */
          code: string;
        }>;
      };
  /** Whether an item (or tool) is of a type neither the spec nor this registry defines. */
  isUnknownItem<
    M extends {
      /** The item's type. */
      type: unknown;
    },
  >(item: M): item is Extract<M, UnknownMember>;
  /** Whether a streaming event is of a type neither the spec nor this registry defines. */
  isUnknownEvent<
    M extends {
      /** The event's type. */
      type: unknown;
    },
  >(event: M): event is Extract<M, UnknownMember>;
}

/**
 * Extended validators whose inferred types include the registered vendor members, plus the events
 * package's accumulator and checker set up for them. Vendor members that are not registered still pass
 * as opaque members, intact (forward-compatible), and a known type with a broken body still fails.
 */
export function createRegistry<
  const I extends readonly ItemDefinition[] = [],
  const E extends readonly EventDefinition[] = [],
  const T extends readonly ToolDefinition[] = [],
>(input: RegistryInput<I, E, T>): Registry<I, E, T> {
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
  // Definitions are typed lightly (see DefinedSchema); at run time their schemas are Zod schemas.
  const zod = (schema: unknown) => schema as z.ZodType;

  const known = (schema: { _zod: { propValues?: Record<string, Set<unknown>> } }) =>
    [...(schema._zod.propValues?.type ?? [])].filter((v): v is string | null => typeof v === 'string' || v === null);
  const extend = <S extends z.ZodType>(base: S, extra: z.ZodType[]) => {
    // A discriminated union routes a vendor type straight to its schema, so errors point at the right field.
    const members = extra.length === 0 ? base : z.discriminatedUnion('type', [base, ...extra] as never);
    return openUnion(members as z.ZodType, [...known(base as never), ...extra.flatMap((m) => known(m as never))]);
  };

  const ItemField = extend(
    core.ItemFieldSchema,
    items.map((i) => zod(i.schema)),
  ) as z.ZodType;
  const ItemParam = extend(
    core.ItemParamSchema,
    items.map((i) => zod(i.schema)),
  ) as z.ZodType;
  const Tool = extend(
    core.ToolSchema,
    tools.map((t) => zod(t.param)),
  ) as z.ZodType;
  const ResponsesToolParam = extend(
    core.ResponsesToolParamSchema,
    tools.map((t) => zod(t.param)),
  ) as z.ZodType;
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
  ) as z.ZodType;

  const folds = Object.fromEntries(events.filter((e) => e.fold).map((e) => [e.type, e.fold!]));
  const eventSchemas = new Map<string, z.ZodType>(events.map((e) => [e.type, zod(e.schema)]));
  const validateVendorEvent = (event: Record<string, unknown>) => {
    const schema = eventSchemas.get(String(event.type));
    if (!schema) return undefined;
    const result = validate(schema, event);
    return result.success ? undefined : result.issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ');
  };

  const knownItems = new Set<unknown>([
    ...known(core.ItemFieldSchema as never),
    ...known(core.ItemParamSchema as never),
    ...known(core.ToolSchema as never),
    ...known(core.ResponsesToolParamSchema as never),
    ...items.map((i) => i.type),
    ...tools.map((t) => t.type),
  ]);
  const knownEvents = new Set<unknown>([...known(core.StreamingEventSchema as never), ...events.map((e) => e.type)]);

  const schemas = {
    ItemField,
    ItemParam,
    Tool,
    ResponsesToolParam,
    ResponseResource,
    CreateResponseBody,
    StreamingEvent,
  };
  return {
    version,
    schemas: schemas as unknown as Registry<I, E, T>['schemas'],
    createAccumulator: () => createAccumulator({ folds }),
    createStreamChecker: (options = {}) =>
      createStreamChecker({
        ...options,
        specVersion: version,
        accumulator: { folds },
        validateVendorEvent,
        eventSchema: StreamingEvent,
      }),
    validateVendorEvent,
    validate: (schema, value) => validate(schemas[schema] as z.ZodType, value),
    isUnknownItem: <M extends { type: unknown }>(item: M): item is Extract<M, UnknownMember> =>
      !knownItems.has(item.type),
    isUnknownEvent: <M extends { type: unknown }>(event: M): event is Extract<M, UnknownMember> =>
      !knownEvents.has(event.type),
  };
}

import type { ResponseResource } from '@openresponses/types';
import * as z from 'zod/v4';

/** The spec's rule for extension types, shared with `@openresponses/events` (one rule for every package). */
import { VENDOR_TYPE_PATTERN } from '@openresponses/events';

export { VENDOR_TYPE_PATTERN };

/** An extension definition that breaks the spec's rules (bad slug, missing or redefined core fields). */
export class ExtensionDefinitionError extends Error {
  /** `'ExtensionDefinitionError'`. */
  override name = 'ExtensionDefinitionError';
}

/** An extension type: a provider slug, a colon, a name (`acme:search_result`). */
export type VendorType = `${string}:${string}`;

function checkSlug<T extends string>(type: T, what: string): T {
  if (!VENDOR_TYPE_PATTERN.test(type)) {
    throw new ExtensionDefinitionError(
      `${what} type "${type}" must be slug-prefixed like "acme:thing" (lowercase letters, digits, "_" or "-", a colon, then a name); core types cannot be redefined.`,
    );
  }
  return type;
}

function checkReserved(shape: z.ZodRawShape, reserved: readonly string[], what: string, type: string): void {
  const clash = Object.keys(shape).filter((key) => reserved.includes(key));
  if (clash.length > 0)
    throw new ExtensionDefinitionError(
      `${what} "${type}" may not redefine ${clash.map((k) => `"${k}"`).join(', ')}: those fields carry the spec's semantics.`,
    );
}

const ITEM_STATUS: z.ZodEnum<{
  /** The item is still being produced. */
  in_progress: 'in_progress';
  /** The item was produced in full. */
  completed: 'completed';
  /** The item was cut short (the response says why in `incomplete_details`). */
  incomplete: 'incomplete';
}> = z.enum(['in_progress', 'completed', 'incomplete']);

/** A vendor item: `id`, `type` and `status` (the item state machine) plus the vendor's fields. */
export function defineItem<const T extends VendorType, const S extends z.ZodRawShape>(type: T, shape: S) {
  checkSlug(type, 'Item');
  checkReserved(shape, ['type', 'id', 'status'], 'Item', type);
  const schema = z.looseObject({
    /** The vendor item type. */
    type: z.literal(type),
    /** The item's id. */
    id: z.string(),
    /** The item state machine: `in_progress`, `completed` or `incomplete`. */
    status: ITEM_STATUS,
    ...shape,
  });
  return {
    /** `item`. */
    kind: 'item' as const,
    /** The vendor item type. */
    type,
    /** Validates the item (classic Zod, lossless: unknown keys kept). */
    schema,
  };
}

/**
 * What the registry needs of a definition's schema. The definition types are declared, not inferred
 * from the Zod expressions: checking a definition's ZodObject against a light shape is cheap, whereas
 * against another ZodObject type it costs tens of thousands of type instantiations per registry.
 */
export interface DefinedSchema {
  readonly _zod: { readonly output: unknown };
}

/** A vendor item as `defineItem` returns it. */
export interface ItemDefinition {
  /** `item`. */
  readonly kind: 'item';
  /** The vendor item type. */
  readonly type: VendorType;
  /** Validates the item. */
  readonly schema: DefinedSchema;
}

/** A vendor streaming event: `type` and an integer `sequence_number` plus the vendor's fields; `fold` updates the accumulated response. */
export function defineEvent<const T extends VendorType, const S extends z.ZodRawShape>(
  type: T,
  shape: S,
  options: {
    fold?: (response: ResponseResource, event: z.output<z.ZodObject<S>> & { type: T; sequence_number: number }) => void;
  } = {},
) {
  checkSlug(type, 'Event');
  checkReserved(shape, ['type', 'sequence_number'], 'Event', type);
  const schema = z.looseObject({
    /** The vendor event type. */
    type: z.literal(type),
    /** The event's place in the stream. */
    sequence_number: z.number().int().nonnegative(),
    ...shape,
  });
  return {
    /** `event`. */
    kind: 'event' as const,
    /** The vendor event type. */
    type,
    /** Validates the event. */
    schema,
    /** Folds the event into the accumulated response, when given. */
    fold: options.fold as ((response: ResponseResource, event: unknown) => void) | undefined,
  };
}
/** A vendor streaming event as `defineEvent` returns it. */
export interface EventDefinition {
  /** `event`. */
  readonly kind: 'event';
  /** The vendor event type. */
  readonly type: VendorType;
  /** Validates the event. */
  readonly schema: DefinedSchema;
  /** Folds the event into the accumulated response, when given. */
  readonly fold: ((response: ResponseResource, event: unknown) => void) | undefined;
}

/** A hosted vendor tool: its request parameter (`tools: [{ type: 'acme:document_search', … }]`) and the item its calls produce. */
export function defineTool<const T extends VendorType, const P extends z.ZodRawShape, I extends ItemDefinition>(
  type: T,
  definition: { param: P; item: I },
) {
  checkSlug(type, 'Tool');
  checkReserved(definition.param, ['type'], 'Tool', type);
  const param = z.looseObject({
    /** The vendor tool type. */
    type: z.literal(type),
    ...definition.param,
  });
  return {
    /** `tool`. */
    kind: 'tool' as const,
    /** The vendor tool type. */
    type,
    /** Validates the tool as a request lists it. */
    param,
    /** The item its calls produce. */
    item: definition.item,
  };
}
/** A hosted vendor tool as `defineTool` returns it. */
export interface ToolDefinition {
  /** `tool`. */
  readonly kind: 'tool';
  /** The vendor tool type. */
  readonly type: VendorType;
  /** Validates the tool as a request lists it. */
  readonly param: DefinedSchema;
  /** The item its calls produce. */
  readonly item: ItemDefinition;
}

/** Core schemas that vendor fields can be added to. */
export type ExtensibleSchema = 'CreateResponseBody' | 'ResponseResource';

/** Optional vendor fields on a core schema; their names must be slug-prefixed too (`acme:priority`). */
export function defineFields<const N extends ExtensibleSchema, const S extends z.ZodRawShape>(schema: N, shape: S) {
  for (const key of Object.keys(shape)) checkSlug(key, `Field on ${schema}:`);
  const optional = Object.fromEntries(
    Object.entries(shape).map(([key, value]) => [key, (value as z.ZodType).optional()]),
  ) as unknown as { [K in keyof S]: z.ZodOptional<S[K]> };
  return {
    /** `fields`. */
    kind: 'fields' as const,
    /** The core schema the fields are added to. */
    schema,
    /** The fields, each optional. */
    shape: optional,
  };
}
/** Vendor fields as `defineFields` returns them. */
export interface FieldsDefinition {
  /** `fields`. */
  readonly kind: 'fields';
  /** The core schema the fields are added to. */
  readonly schema: ExtensibleSchema;
  /** The fields, each optional. */
  readonly shape: Readonly<Record<string, DefinedSchema>>;
}

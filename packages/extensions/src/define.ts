import type { ResponseResource } from '@openresponses/types';
import * as z from 'zod/v4';

/** The spec's rule for extension types, shared with `@openresponses/events` (one rule for every package). */
import { VENDOR_TYPE_PATTERN } from '@openresponses/events';

export { VENDOR_TYPE_PATTERN };

/** An extension definition that breaks the spec's rules (bad slug, missing or redefined core fields). */
export class ExtensionDefinitionError extends Error {
  override name = 'ExtensionDefinitionError';
}

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
  const schema = z.looseObject({ type: z.literal(type), id: z.string(), status: ITEM_STATUS, ...shape });
  return { kind: 'item' as const, type, schema };
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
  readonly kind: 'item';
  readonly type: VendorType;
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
  const schema = z.looseObject({ type: z.literal(type), sequence_number: z.number().int().nonnegative(), ...shape });
  return {
    kind: 'event' as const,
    type,
    schema,
    fold: options.fold as ((response: ResponseResource, event: unknown) => void) | undefined,
  };
}
/** A vendor streaming event as `defineEvent` returns it. */
export interface EventDefinition {
  readonly kind: 'event';
  readonly type: VendorType;
  readonly schema: DefinedSchema;
  readonly fold: ((response: ResponseResource, event: unknown) => void) | undefined;
}

/** A hosted vendor tool: its request parameter (`tools: [{ type: 'acme:document_search', … }]`) and the item its calls produce. */
export function defineTool<const T extends VendorType, const P extends z.ZodRawShape, I extends ItemDefinition>(
  type: T,
  definition: { param: P; item: I },
) {
  checkSlug(type, 'Tool');
  checkReserved(definition.param, ['type'], 'Tool', type);
  const param = z.looseObject({ type: z.literal(type), ...definition.param });
  return { kind: 'tool' as const, type, param, item: definition.item };
}
/** A hosted vendor tool as `defineTool` returns it. */
export interface ToolDefinition {
  readonly kind: 'tool';
  readonly type: VendorType;
  readonly param: DefinedSchema;
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
  return { kind: 'fields' as const, schema, shape: optional };
}
/** Vendor fields as `defineFields` returns them. */
export interface FieldsDefinition {
  readonly kind: 'fields';
  readonly schema: ExtensibleSchema;
  readonly shape: Readonly<Record<string, DefinedSchema>>;
}

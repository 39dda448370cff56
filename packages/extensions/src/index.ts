/**
 * Vendor extensions: slug-prefixed (`acme:`) items, events, tools and fields that validate and type-check
 * beside the core schemas.
 *
 * @packageDocumentation
 */
export {
  defineItem,
  defineEvent,
  defineTool,
  defineFields,
  ExtensionDefinitionError,
  VENDOR_TYPE_PATTERN,
  type ItemDefinition,
  type EventDefinition,
  type ToolDefinition,
  type FieldsDefinition,
  type ExtensibleSchema,
  type VendorType,
} from './define.js';
export { createRegistry, type Registry, type RegistryInput } from './registry.js';

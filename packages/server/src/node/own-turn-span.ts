// A turn's span (`chat {model}`) in its fixed shape (telemetry/own-spans.ts): the own tracer's span with the
// attributes a turn sets after its start in fields of their own, in the order the server sets them, written at
// its end from those fields (the starting set's kept bytes, then each field's KeyValue), and the context of its
// children itself. A key it has no field for, or a field set before one it already holds, turns it into the
// general span (`OwnSpan`) with what it holds so far, in order: what it records never differs from the API path.
import type { Attributes, AttributeValue, Context, SpanAttributes, SpanContext } from '@opentelemetry/api';
import { SpanKind } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_OPENRESPONSES_PREVIOUS_RESPONSE_ID,
} from '../telemetry/attributes.js';
import { frozenSetBytes, keyEntry, writeKeyValue } from '../telemetry/otlp-attributes.js';
import type { ProtobufBuffer } from '../telemetry/protobuf-buffer.js';
import { ChildContext, SPAN_KEY, type SpanScope } from '../telemetry/span-scope.js';
import { OwnSpan, type SpanMaker } from './own-span.js';
import { isAttributeValue } from './own-span-attributes.js';

// The fields' keys in the order the server sets them (service/telemetry.ts: the finish reasons, then
// `endTurnSpan`'s), and their KeyValue entries (their key bytes, a value written again from its kept bytes).
const KEYS = [
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_ERROR_TYPE,
] as const;
const ENTRIES = KEYS.map(keyEntry);
const PREVIOUS = keyEntry(ATTR_OPENRESPONSES_PREVIOUS_RESPONSE_ID);

/** A key's field, in the order above; -1 for a key the shape has no field for. */
function fieldOf(key: string): number {
  switch (key) {
    case ATTR_GEN_AI_RESPONSE_FINISH_REASONS:
      return 0;
    case ATTR_GEN_AI_RESPONSE_MODEL:
      return 1;
    case ATTR_GEN_AI_RESPONSE_ID:
      return 2;
    case ATTR_GEN_AI_USAGE_INPUT_TOKENS:
      return 3;
    case ATTR_GEN_AI_USAGE_OUTPUT_TOKENS:
      return 4;
    case ATTR_ERROR_TYPE:
      return 5;
    default:
      return -1;
  }
}

/** A turn's span in its fixed shape; its own scope (`span`, `context`). */
export class OwnTurnSpan extends OwnSpan implements Context, SpanScope {
  private finishReasons: AttributeValue | undefined = undefined;
  private responseModel: AttributeValue | undefined = undefined;
  private responseId: AttributeValue | undefined = undefined;
  private inputTokens: AttributeValue | undefined = undefined;
  private outputTokens: AttributeValue | undefined = undefined;
  private errorType: AttributeValue | undefined = undefined;
  /** The last field set (the next one set must come after it, or be one already set). */
  private last = -1;
  /** Turned into the general span: its attributes are `OwnSpan`'s from then on. */
  private general = false;

  constructor(
    maker: SpanMaker,
    name: string,
    ids: SpanContext,
    parentSpanContext: SpanContext | undefined,
    /** The frozen starting set (`gen_ai.operation.name`, the model, …). */
    start: Attributes,
    /** The context it was started in (its parent's), where its children find what it does not hold. */
    private readonly under: Context,
    /** The continued turn's id, a starting attribute after `start`'s. */
    private readonly previousResponseId: string | undefined,
  ) {
    super(maker, name, SpanKind.INTERNAL, ids, parentSpanContext, start, undefined, undefined);
  }

  /** Itself: the span of its scope. */
  get span(): this {
    return this;
  }

  /** Itself: the context its children run in. */
  get context(): this {
    return this;
  }

  getValue(key: symbol): unknown {
    return key === SPAN_KEY ? this : this.under.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return new ChildContext(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return new ChildContext(this, key, undefined);
  }

  override setAttribute(key: string, value: SpanAttributes[string]): this {
    if (this.general) return super.setAttribute(key, value);
    if (value == null || !this.isRecording() || !isAttributeValue(value)) return this;
    const field = fieldOf(key);
    if (field < 0 || (field < this.last && this.fieldValue(field) === undefined)) {
      this.toGeneral();
      return super.setAttribute(key, value);
    }
    if (field > this.last) this.last = field;
    switch (field) {
      case 0:
        this.finishReasons = value;
        break;
      case 1:
        this.responseModel = value;
        break;
      case 2:
        this.responseId = value;
        break;
      case 3:
        this.inputTokens = value;
        break;
      case 4:
        this.outputTokens = value;
        break;
      default:
        this.errorType = value;
    }
    return this;
  }

  private fieldValue(field: number): AttributeValue | undefined {
    switch (field) {
      case 0:
        return this.finishReasons;
      case 1:
        return this.responseModel;
      case 2:
        return this.responseId;
      case 3:
        return this.inputTokens;
      case 4:
        return this.outputTokens;
      default:
        return this.errorType;
    }
  }

  /** Hands what it holds to the general span, in the order it was set (the continued turn's id first). */
  private toGeneral(): void {
    this.general = true;
    if (this.previousResponseId !== undefined)
      super.setAttribute(ATTR_OPENRESPONSES_PREVIOUS_RESPONSE_ID, this.previousResponseId);
    for (let field = 0; field <= this.last; field++) {
      const value = this.fieldValue(field);
      if (value !== undefined) super.setAttribute(KEYS[field]!, value);
    }
  }

  override get attributes(): Attributes {
    if (this.general) return super.attributes;
    const all: Attributes = { ...this.initial };
    if (this.previousResponseId !== undefined) all[ATTR_OPENRESPONSES_PREVIOUS_RESPONSE_ID] = this.previousResponseId;
    for (let field = 0; field <= this.last; field++) {
      const value = this.fieldValue(field);
      if (value !== undefined) all[KEYS[field]!] = value;
    }
    return all;
  }

  /** Writes its attributes (Span field 9) from its fields; false once it is the general span (nothing written). */
  encodeAttributes(out: ProtobufBuffer): boolean {
    if (this.general) return false;
    const start = frozenSetBytes(this.initial);
    if (start === undefined) return false;
    out.append(start);
    if (this.previousResponseId !== undefined) writeKeyValue(out, 9, PREVIOUS, this.previousResponseId);
    if (this.finishReasons !== undefined) writeKeyValue(out, 9, ENTRIES[0]!, this.finishReasons);
    if (this.responseModel !== undefined) writeKeyValue(out, 9, ENTRIES[1]!, this.responseModel);
    if (this.responseId !== undefined) writeKeyValue(out, 9, ENTRIES[2]!, this.responseId);
    if (this.inputTokens !== undefined) writeKeyValue(out, 9, ENTRIES[3]!, this.inputTokens);
    if (this.outputTokens !== undefined) writeKeyValue(out, 9, ENTRIES[4]!, this.outputTokens);
    if (this.errorType !== undefined) writeKeyValue(out, 9, ENTRIES[5]!, this.errorType);
    return true;
  }
}

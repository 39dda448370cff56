import type { ItemField, ItemParam, ResponseResource } from '@openresponses/types';

type OutputMessage = Extract<ItemField, { type: 'message' }>;
type Part = OutputMessage['content'][number];
type Reasoning = Extract<ItemField, { type: 'reasoning' }>;
type SummaryPart = Reasoning['summary'][number];
type AssistantInputPart = Exclude<Extract<ItemParam, { role: 'assistant' }>['content'], string>[number];

/** Content part types the spec defines; any other type is a vendor's and passes through unchanged. */
const SPEC_PART_TYPES: ReadonlySet<string> = new Set<Part['type']>([
  'input_text',
  'output_text',
  'text',
  'summary_text',
  'reasoning_text',
  'refusal',
  'input_image',
  'input_file',
  'input_video',
]);

/**
 * A response's output items as input items for the next request (resending full history instead of
 * `previous_response_id`). Each message keeps the content parts its role accepts as input, reasoning
 * keeps its summary and encrypted content (inputs carry no reasoning text), and item or content types
 * this version does not know pass through unchanged.
 */
export function outputToInput(response: Pick<ResponseResource, 'output'>): ItemParam[] {
  return response.output.map(outputItemToInput);
}

function outputItemToInput(item: ItemField): ItemParam {
  switch (item.type) {
    case 'message':
      return messageToInput(item);
    case 'reasoning': {
      const { id, summary, encrypted_content } = item;
      return {
        type: 'reasoning',
        id,
        summary: summary.filter(
          (part): part is Extract<SummaryPart, { type: 'summary_text' }> => part.type === 'summary_text',
        ),
        ...(encrypted_content !== undefined && { encrypted_content }),
      };
    }
    default:
      // function_call, function_call_output, compaction and unknown items are valid inputs as they are.
      return item;
  }
}

function messageToInput(message: OutputMessage): ItemParam {
  const { id, status, content } = message;
  switch (message.role) {
    case 'assistant':
      return {
        type: 'message',
        role: 'assistant',
        id,
        status,
        content: content.flatMap((part): AssistantInputPart[] => {
          if (part.type === 'output_text')
            return [{ type: part.type, text: part.text, annotations: part.annotations.filter(isSpecAnnotation) }];
          return part.type === 'refusal' || isVendorPart(part) ? [part] : [];
        }),
        ...(message.phase && { phase: message.phase }),
      };
    case 'user':
      return {
        type: 'message',
        role: 'user',
        id,
        status,
        content: content.filter(
          (part) =>
            part.type === 'input_text' ||
            part.type === 'input_image' ||
            part.type === 'input_file' ||
            isVendorPart(part),
        ),
      };
    default:
      return { type: 'message', role: message.role, id, status, content: content.filter(isTextOrVendor) };
  }
}

function isVendorPart(part: Part): part is Extract<Part, { type: `${string}(unknown type)` }> {
  return !SPEC_PART_TYPES.has(part.type);
}

function isTextOrVendor(part: Part): part is Extract<Part, { type: 'input_text' | `${string}(unknown type)` }> {
  return part.type === 'input_text' || isVendorPart(part);
}

function isSpecAnnotation<A extends { type: string }>(
  annotation: A,
): annotation is Extract<A, { type: 'url_citation' }> {
  return annotation.type === 'url_citation';
}

/**
 * The parts of the Gemini API (`POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`,
 * `GET /v1beta/models`) that the gateway reads and writes, as Zod schemas with the types inferred from them
 * (field names from the API reference: `GenerateContentRequest`, `GenerateContentResponse`, `Part`, `Status`).
 * What the upstream sends is parsed with these before any of it becomes part of a response; objects are loose
 * (fields the gateway does not use pass through), and a part of a kind the gateway does not know (code
 * execution, inline images in an answer) is kept and skipped, because Google adds part kinds without a new
 * API version.
 */
import * as z from 'zod/v4';

// ---- What the gateway sends (built by request.ts; typed, not parsed) ----

/** A Gemini `Schema` (the OpenAPI 3.0 subset `functionDeclarations[].parameters` takes; see json-schema.ts). */
export interface GeminiSchema {
  type?: 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT';
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  items?: GeminiSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, GeminiSchema>;
  propertyOrdering?: string[];
  required?: string[];
  minProperties?: number;
  maxProperties?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: GeminiSchema[];
  default?: unknown;
  example?: unknown;
}

export type GeminiRequestPart =
  | { text: string; thought?: true; thoughtSignature?: string }
  | { inlineData: { mimeType: string; data: string } }
  | { fileData: { fileUri: string; mimeType?: string } }
  | { functionCall: { name: string; args: Record<string, unknown>; id?: string }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: Record<string, unknown>; id?: string } };

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiRequestPart[];
}

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: GeminiSchema;
}

export interface GeminiThinkingConfig {
  includeThoughts?: boolean;
  thinkingBudget?: number;
  thinkingLevel?: 'minimal' | 'low' | 'medium' | 'high';
}

export interface GeminiGenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseMimeType?: string;
  responseJsonSchema?: unknown;
  thinkingConfig?: GeminiThinkingConfig;
  [setting: string]: unknown;
}

export interface GeminiRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] }>;
  toolConfig?: {
    functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE' | 'VALIDATED'; allowedFunctionNames?: string[] };
  };
  generationConfig?: GeminiGenerationConfig;
  [setting: string]: unknown;
}

// ---- What the upstream sends (parsed) ----

const count = z.number().int().nonnegative();

export const usageSchema = z.looseObject({
  promptTokenCount: count.nullish(),
  candidatesTokenCount: count.nullish(),
  thoughtsTokenCount: count.nullish(),
  toolUsePromptTokenCount: count.nullish(),
  cachedContentTokenCount: count.nullish(),
  totalTokenCount: count.nullish(),
});
export type GeminiUsage = z.infer<typeof usageSchema>;

/**
 * One part of an answer: text (a thought summary when `thought`), a function call, or a kind this gateway
 * does not read (kept, then skipped). Any part may carry a `thoughtSignature`.
 */
export const partSchema = z.looseObject({
  text: z.string().nullish(),
  thought: z.boolean().nullish(),
  thoughtSignature: z.string().min(1).nullish(),
  functionCall: z
    .looseObject({
      name: z.string().min(1),
      args: z.record(z.string(), z.unknown()).nullish(),
      id: z.string().min(1).nullish(),
    })
    .nullish(),
});
export type GeminiPart = z.infer<typeof partSchema>;

export const candidateSchema = z.looseObject({
  content: z.looseObject({ role: z.string().nullish(), parts: z.array(partSchema).nullish() }).nullish(),
  finishReason: z.string().nullish(),
  finishMessage: z.string().nullish(),
  index: count.nullish(),
});

/** The error body of an HTTP failure (google.rpc.Status inside `error`), also sent as a mid-stream chunk. */
export const errorSchema = z.looseObject({
  error: z.looseObject({
    code: z.number().int().nullish(),
    message: z.string().nullish(),
    status: z.string().nullish(),
    details: z.array(z.looseObject({ '@type': z.string().nullish() })).nullish(),
  }),
});
export type GeminiError = z.infer<typeof errorSchema>['error'];

/**
 * A whole answer (`generateContent`), and each chunk of a streamed one (`streamGenerateContent?alt=sse`: every
 * chunk is a `GenerateContentResponse` holding the new parts; the last carries `finishReason`). A prompt that was
 * blocked has no candidates and a `promptFeedback.blockReason`.
 */
export const generateContentResponseSchema = z.looseObject({
  candidates: z.array(candidateSchema).nullish(),
  promptFeedback: z.looseObject({ blockReason: z.string().nullish() }).nullish(),
  usageMetadata: usageSchema.nullish(),
  modelVersion: z.string().nullish(),
  responseId: z.string().nullish(),
});
export type GenerateContentResponse = z.infer<typeof generateContentResponseSchema>;

/** `GET /v1beta/models`: one page of the models the key may use, and the token of the next page. */
export const modelListSchema = z.looseObject({
  models: z
    .array(
      z.looseObject({
        name: z.string().min(1),
        supportedGenerationMethods: z.array(z.string()).nullish(),
      }),
    )
    .nullish(),
  nextPageToken: z.string().nullish(),
});

/**
 * What `encrypted_content` carries for this family (sealed by the turn runner, checked again when opened):
 * `thought`, a thought summary and the signature that closed it (a part `{ thought: true, text,
 * thoughtSignature }`); `signature`, a signature Gemini put on an answer part (a function call or text), sent
 * back on the part after this reasoning item (`next`) or on the part before it (`previous`).
 */
export const thoughtStateSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    /** A thought summary and the signature that closed it. */
    kind: z.literal('thought'),
    /** The thought summary's text. */
    text: z.string(),
    /** The `thoughtSignature` Gemini put on the thought. */
    signature: z.string().min(1),
  }),
  z.strictObject({
    /** A signature Gemini put on an answer part (a function call or text). */
    kind: z.literal('signature'),
    /** The `thoughtSignature`, sent back as Gemini gave it. */
    signature: z.string().min(1),
    /** Which part it goes back on: the one after this reasoning item (`next`) or the one before it (`previous`). */
    on: z.enum(['next', 'previous']),
  }),
]);
export type ThoughtState = z.infer<typeof thoughtStateSchema>;

// typia's validators for the same types, the comparison in `npm run bench -- validation`. This is typia's
// input: `typia generate` compiles it at bench time (fixtures/typia.ts) into bench/.typia/, never committed.
import type { ResponseResource, StreamingEvent } from '@openresponses/types';
import typia from 'typia';

export const validateResponseResource = typia.createValidate<ResponseResource>();
export const isResponseResource = typia.createIs<ResponseResource>();
export const validateStreamingEvent = typia.createValidate<StreamingEvent>();
export const isStreamingEvent = typia.createIs<StreamingEvent>();

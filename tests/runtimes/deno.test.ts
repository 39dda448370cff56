import { describeGuestRuntime } from './guest-runtime.js';

describeGuestRuntime('deno', 'Deno');

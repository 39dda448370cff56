import { describeGuestRuntime } from './guest-runtime.js';

describeGuestRuntime('bun', 'Bun');

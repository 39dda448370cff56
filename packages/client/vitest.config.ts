import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// No per-file isolation: the files share one module graph (the run has one worker on 2 cores), none of them
// changes module state another reads (errors.test.ts puts back the environment it sets), and they pass in order
// and shuffled. On the 2-core Xeon: CPU 15.4 -> 8.1 s, import 9.2 -> 4.9 s.
export default defineConfig({ ...shared, test: { ...shared.test, isolate: false } });

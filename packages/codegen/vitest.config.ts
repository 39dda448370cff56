import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// No per-file isolation: the files share one module graph (the run has one worker on 2 cores), none of them
// changes module state another reads, and they pass in order and shuffled. On the 2-core Xeon: CPU 59 -> 42 s,
// import 10.2 -> 2.3 s.
export default defineConfig({ ...shared, test: { ...shared.test, isolate: false } });

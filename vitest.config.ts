import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Browser tests each launch Chromium; on a 2-core machine more forks only add contention.
    maxWorkers: 2,
    fileParallelism: true,
  },
});

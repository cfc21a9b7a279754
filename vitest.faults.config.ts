import { defineConfig } from 'vitest/config';

// The fault-injection suite (`npm run test:faults`): browsers killed mid-episode, a failing model
// endpoint, concurrent writers, corrupt inputs, Ctrl-C mid-command. The main suite runs these too.
export default defineConfig({
  test: {
    include: ['src/**/*.faults.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    fileParallelism: true,
  },
});

import { defineConfig } from 'vitest/config';

// The long suite (`npm run test:long`): end-to-end scenarios that each take minutes on a 2-core
// machine and repeat paths the main suite already runs once (a pipeline extended or restored after
// a lost machine, the reference solvers on every template under perturbation). Not in `npm test`,
// which CI runs within its 20 minutes; run it before changing the pipeline's resume, ledger or
// snapshot code, or the world's perturbations.
export default defineConfig({
  test: {
    include: ['src/**/*.long.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    maxWorkers: 2,
    fileParallelism: true,
  },
});

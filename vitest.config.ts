import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * Files that run for minutes (a real model on the CPU). Started first, each holds one worker while
 * the other works through the rest of the suite; started last (vitest's default order on a fresh
 * clone, which has no timings and puts larger files first), they would run alone at the end. Longest
 * first, roughly, in this list's order (measured in `bash .ci/run` on 2 cores: the demo 135 s, the
 * lm demo 241 s, real-model 149 s, the pytest suite 97 s and its real-model part 154 s, which
 * starts once a worker is free).
 */
const LONG_FILES = [
  'src/cli/commands/demo.test.ts',
  'src/cli/pipeline/lm-demo.test.ts',
  'src/models/trainer-python.test.ts',
  'src/cli/serve-model/real-model.test.ts',
  'src/models/trainer-python-gemma.test.ts',
  'src/cli/commands/judge-real-model.test.ts',
];

/** vitest's own order, with the long files moved to the front. */
class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) =>
      LONG_FILES.findIndex((p) => f.moduleId.replaceAll('\\', '/').endsWith(p));
    const long = sorted.filter((f) => rank(f) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...long, ...sorted.filter((f) => rank(f) < 0)];
  }
}

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The long suite (vitest.long.config.ts, `npm run test:long`) is not part of `npm test`.
    exclude: ['**/node_modules/**', '**/*.long.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Browser tests each launch Chromium; on a 2-core machine more forks only add contention.
    maxWorkers: 2,
    fileParallelism: true,
    sequence: { sequencer: LongFilesFirst },
  },
});

import { pytestSuite } from './testing/pytest-suite.ts';

/**
 * The PyTorch trainer's pytest suite (trainer/tests) beside the TS tests, so `npm test` covers both
 * implementations: all of it but the Gemma 3 270M smoke tests, which trainer-python-gemma.test.ts runs
 * (they load the real model for a minute, so vitest runs them beside this part).
 */
pytestSuite('PyTorch trainer (pytest trainer/tests, without the real model)', [
  '-k',
  'not local_gemma',
  'tests',
]);

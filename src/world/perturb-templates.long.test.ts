import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failuresUnderPerturbation, sampleByTemplate, WorldHarness } from './testing/solve-harness.ts';

/**
 * The reference solvers on one task of every template, each under one of several non-zero
 * perturbation seeds: the answer and the verifier are unchanged, so the privileged solver still
 * succeeds on the perturbed pages. In the long suite (`npm run test:long`, ~2 min); perturb.test.ts
 * runs one template of every site in CI, and each site's own test every template unperturbed.
 */
describe('reference solvers under perturbation on every template, in Chromium', () => {
  let h: WorldHarness;
  beforeAll(async () => {
    h = await WorldHarness.open();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('solves a sampled task of every template', async () => {
    expect(await failuresUnderPerturbation(h, sampleByTemplate(h.tasks(), 1, 'perturb-ci'))).toEqual([]);
  }, 900_000);
});

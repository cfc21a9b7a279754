import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The options table shared with the PyTorch trainer (trainer/rmsweb_trainer/options.py reads the
 * same file): one place holds every default, so the two implementations cannot drift apart.
 */
export const OPTIONS_FILE = new URL('./options.json', import.meta.url);

/** The fields every RL algorithm's row has. */
const RlCommon = {
  steps: z.number().int(),
  batchSize: z.number().int(),
  groupSize: z.number().int(),
  temperature: z.number(),
  lr: z.number(),
  updateEpochs: z.number().int(),
  seed: z.number().int(),
};

const Table = z.object({
  'salvage-ds': z.object({
    ...RlCommon,
    clipEps: z.number(),
    beta: z.number(),
    betaBrake: z.number(),
    contrastDelta: z.number(),
    competenceTau: z.number(),
    salvage: z.boolean(),
  }),
  grpo: z.object({ ...RlCommon, clipEps: z.number(), beta: z.number() }),
  dapo: z.object({
    ...RlCommon,
    clipLow: z.number(),
    clipHigh: z.number(),
    maxRefills: z.number().int(),
  }),
  sft: z.object({
    epochs: z.number().int(),
    batchSize: z.number().int(),
    lr: z.number(),
    seed: z.number().int(),
    valFrac: z.number(),
  }),
  polarized: z.object({ power: z.number() }),
  torch: z.object({
    maxNewTokens: z.number().int(),
    maxPromptTokens: z.number().int(),
    lora: z.boolean(),
    loraRank: z.number().int(),
    loraAlpha: z.number(),
    loraDropout: z.number(),
    microBatch: z.number().int(),
  }),
});

/** Every trainer default, parsed once from options.json. */
export const OPTIONS: z.infer<typeof Table> = Table.parse(JSON.parse(readFileSync(OPTIONS_FILE, 'utf8')));

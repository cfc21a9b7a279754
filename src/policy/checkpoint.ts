import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describeZodIssues, InputError } from '../core/errors.ts';
import { POLICY_ACTION_TYPES } from './action-space.ts';
import { FEATURIZER_VERSION } from './featurizer.ts';
import { weightShapes } from './model.ts';

/**
 * Student checkpoints are folders:
 *   config.json    hyperparameters, featurizer version and config, action types, seed
 *   weights.json   name, shape and float offset of every weight in weights.bin
 *   weights.bin    float32 little-endian values, concatenated
 *   metrics.json   training metrics (written by the trainer, optional)
 * No tfjs-node is needed: weights are read and written as plain typed arrays.
 */

export const CHECKPOINT_FORMAT = 'rmsweb-student';

export const FeaturizerConfigSchema = z.object({
  buckets: z.number().int().positive(),
  hashSeed: z.number().int(),
  maxElements: z.number().int().positive(),
  maxCandidates: z.number().int().positive(),
  maxNgram: z.number().int().positive(),
  maxOptionsPerSelect: z.number().int().positive(),
  maxPageCandidates: z.number().int().nonnegative(),
  maxTokensState: z.number().int().positive(),
  maxTokensElement: z.number().int().positive(),
  maxTokensCandidate: z.number().int().positive(),
  historyWindow: z.number().int().nonnegative(),
  memoryInState: z.boolean(),
  elementTrigrams: z.boolean(),
});

export const ModelConfigSchema = z.object({
  embedDim: z.number().int().positive(),
  hidden: z.number().int().positive(),
  typeDim: z.number().int().positive(),
  seed: z.number().int(),
});

export const CheckpointConfig = z.object({
  format: z.literal(CHECKPOINT_FORMAT),
  id: z.string(),
  featurizerVersion: z.number().int(),
  actionTypes: z.array(z.string()),
  featurizer: FeaturizerConfigSchema,
  model: ModelConfigSchema,
  createdAt: z.string(),
  /** Free-form provenance: training command, data, trainer options. */
  meta: z.record(z.string(), z.unknown()).default({}),
});
export type CheckpointConfig = z.infer<typeof CheckpointConfig>;

const WeightSpec = z.object({
  format: z.literal('rmsweb-student-weights'),
  dtype: z.literal('float32'),
  weights: z.array(
    z.object({
      name: z.string(),
      shape: z.array(z.number().int()),
      offset: z.number().int(),
      length: z.number().int(),
    }),
  ),
});

function writeAtomic(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/** Writes a checkpoint folder (created if needed; files replaced atomically one by one). */
export function writeCheckpoint(
  dir: string,
  config: CheckpointConfig,
  weights: Record<string, Float32Array>,
): void {
  mkdirSync(dir, { recursive: true });
  const names = Object.keys(weightShapes(config.model, config.featurizer.buckets));
  let total = 0;
  const specs = names.map((name) => {
    const data = weights[name];
    if (!data) throw new Error(`writeCheckpoint: missing weight ${name}`);
    const spec = {
      name,
      shape: weightShapes(config.model, config.featurizer.buckets)[name],
      offset: total,
      length: data.length,
    };
    total += data.length;
    return spec;
  });
  const all = new Float32Array(total);
  for (const s of specs) all.set(weights[s.name], s.offset);
  const bytes = new Uint8Array(all.buffer);
  // Float32Array is platform-endian; checkpoints are little-endian everywhere Node runs today.
  writeAtomic(join(dir, 'weights.bin'), bytes);
  writeAtomic(
    join(dir, 'weights.json'),
    JSON.stringify({ format: 'rmsweb-student-weights', dtype: 'float32', weights: specs }, null, 2),
  );
  writeAtomic(join(dir, 'config.json'), JSON.stringify(config, null, 2));
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new InputError(`cannot read JSON: ${(e as Error).message}`, { file: path });
  }
}

/** Reads and validates a checkpoint folder. Errors name the file and the field. */
export function readCheckpoint(dir: string): {
  config: CheckpointConfig;
  weights: Record<string, Float32Array>;
} {
  const cfgPath = join(dir, 'config.json');
  if (!existsSync(cfgPath))
    throw new InputError(`not a student checkpoint folder (no config.json)`, { file: dir });
  const parsed = CheckpointConfig.safeParse(readJson(cfgPath));
  if (!parsed.success) {
    throw new InputError(`invalid checkpoint config: ${describeZodIssues(parsed.error.issues)}`, {
      file: cfgPath,
    });
  }
  const config = parsed.data;
  if (config.featurizerVersion !== FEATURIZER_VERSION) {
    throw new InputError(
      `checkpoint was trained with featurizer version ${config.featurizerVersion}, this build has version ${FEATURIZER_VERSION}; retrain it (rmsweb train sft)`,
      { file: cfgPath, field: 'featurizerVersion' },
    );
  }
  const expectedTypes = POLICY_ACTION_TYPES.join(',');
  if (config.actionTypes.join(',') !== expectedTypes) {
    throw new InputError(
      `checkpoint action types [${config.actionTypes}] differ from this build's [${expectedTypes}]`,
      {
        file: cfgPath,
        field: 'actionTypes',
      },
    );
  }
  const specPath = join(dir, 'weights.json');
  const spec = WeightSpec.safeParse(readJson(specPath));
  if (!spec.success)
    throw new InputError(`invalid weight spec: ${describeZodIssues(spec.error.issues)}`, { file: specPath });
  const binPath = join(dir, 'weights.bin');
  const buf = readFileSync(binPath);
  const all = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  const shapes = weightShapes(config.model, config.featurizer.buckets);
  const weights: Record<string, Float32Array> = {};
  for (const w of spec.data.weights) {
    const want = shapes[w.name];
    if (!want) throw new InputError(`unknown weight "${w.name}"`, { file: specPath });
    if (want.join('x') !== w.shape.join('x') || want.reduce((a, b) => a * b, 1) !== w.length) {
      throw new InputError(`weight "${w.name}" has shape [${w.shape}], the config implies [${want}]`, {
        file: specPath,
      });
    }
    if (w.offset + w.length > all.length)
      throw new InputError(`weight "${w.name}" runs past the end of weights.bin`, { file: binPath });
    weights[w.name] = all.slice(w.offset, w.offset + w.length);
  }
  for (const name of Object.keys(shapes)) {
    if (!weights[name]) throw new InputError(`missing weight "${name}"`, { file: specPath });
  }
  return { config, weights };
}

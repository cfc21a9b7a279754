import * as tf from '@tensorflow/tfjs';
import type { Action } from '../core/action.ts';
import type { Rng } from '../core/rng.ts';
import { ARGUMENT_TYPES, ELEMENT_TYPES, POLICY_ACTION_TYPES } from './action-space.ts';
import { initPolicyBackend } from './backend.ts';
import { PolicyBatch } from './batch.ts';
import { NUM_PAIR_FEATURES } from './candidate-features.ts';
import { CHECKPOINT_FORMAT, type CheckpointConfig, readCheckpoint, writeCheckpoint } from './checkpoint.ts';
import {
  type ActionTargets,
  actionTargets,
  argumentMask,
  choiceToAction,
  DEFAULT_FEATURIZER,
  FEATURIZER_VERSION,
  type FeaturizedState,
  type FeaturizerConfig,
  featurizeState,
  pairFeatures,
} from './featurizer.ts';
import { DEFAULT_MODEL, type Encoded, type ModelConfig, maskedLogSoftmax, PolicyModel } from './model.ts';
import { type Dist, pickIndex, readOnce } from './sampling.ts';
import type { ActionSample, EncodedBatch, PolicyForward, PolicyState, StudentPolicy } from './types.ts';

/** Log-probability given to actions the policy cannot express (in tensors; logProb() returns -Infinity). */
export const NOT_REPRESENTABLE_LOGPROB = -1e9;

export interface StudentPolicyOptions {
  id?: string;
  featurizer?: Partial<FeaturizerConfig>;
  model?: Partial<ModelConfig>;
  /** Provenance stored in config.json. */
  meta?: Record<string, unknown>;
}

/**
 * The local student: a StudentPolicy over the factorized action (type, element, argument) on
 * tfjs. log p(action) = log p(type) + log p(element | type) + log p(argument | type, element),
 * each a masked softmax over the choices valid in the state.
 */
export class LocalStudentPolicy implements StudentPolicy {
  readonly id: string;
  readonly actionTypes = POLICY_ACTION_TYPES;
  readonly featurizer: FeaturizerConfig;
  readonly model: PolicyModel;
  readonly meta: Record<string, unknown>;

  constructor(opts: StudentPolicyOptions = {}, weights?: Record<string, Float32Array>) {
    this.featurizer = { ...DEFAULT_FEATURIZER, ...opts.featurizer };
    const modelCfg = { ...DEFAULT_MODEL, ...opts.model };
    this.id = opts.id ?? `student-seed${modelCfg.seed}`;
    this.meta = opts.meta ?? {};
    this.model = new PolicyModel(modelCfg, this.featurizer.buckets, weights);
  }

  /**
   * Featurized states by object: SFT epochs and RL groups encode the same state objects again and
   * again, and featurization (candidates, match features) costs as much as a training step. States
   * are treated as immutable; the cache lets them be collected with their owner.
   */
  private readonly featurized = new WeakMap<PolicyState, FeaturizedState>();

  /** Featurizes states (each state object once per policy: see `featurized`). */
  encode(states: PolicyState[]): PolicyBatch {
    const featurized = states.map((s) => {
      let f = this.featurized.get(s);
      if (!f) {
        f = featurizeState(s, this.featurizer);
        this.featurized.set(s, f);
      }
      return f;
    });
    return new PolicyBatch(states, featurized);
  }

  private batchOf(b: EncodedBatch): PolicyBatch {
    if (!(b instanceof PolicyBatch))
      throw new Error('this EncodedBatch was not made by LocalStudentPolicy.encode');
    return b;
  }

  /** Sub-decision targets of each action (exposed for trainers and diagnostics). */
  targets(batch: EncodedBatch, actions: Action[]): ActionTargets[] {
    const b = this.batchOf(batch);
    if (actions.length !== b.size) throw new Error(`forward: ${actions.length} actions for ${b.size} states`);
    return actions.map((a, i) => actionTargets(b.featurized[i], a));
  }

  forward(batch: EncodedBatch, actions: Action[]): PolicyForward {
    const b = this.batchOf(batch);
    const tg = this.targets(b, actions);
    const { size: N, E, A } = b;
    const T = POLICY_ACTION_TYPES.length;
    const enc = this.model.encode(b);
    const typeLogProbs = maskedLogSoftmax(enc.typeLogits, tf.tensor2d(b.typeMask(), [N, T]));
    const condType = Int32Array.from(tg, (t) => Math.max(t.type, 0));
    const condElem = Int32Array.from(tg, (t) => t.element);
    const elemMask = new Float32Array(N * E);
    const argMask = new Float32Array(N * A);
    const pair = new Float32Array(N * A * NUM_PAIR_FEATURES);
    b.featurized.forEach((f, r) => {
      elemMask.set(f.elementMasks[condType[r]], r * E);
      argMask.set(argumentMask(f, condType[r], condElem[r]), r * A);
      pair.set(pairFeatures(f, condElem[r]), r * A * NUM_PAIR_FEATURES);
    });
    const elementLogProbs = maskedLogSoftmax(
      this.model.elementLogits(enc, null, condType),
      tf.tensor2d(elemMask, [N, E]),
    );
    const argLogProbs = maskedLogSoftmax(
      this.model.argLogits(enc, null, condType, condElem, pair),
      tf.tensor2d(argMask, [N, A]),
    );
    const pick = (lp: tf.Tensor2D, width: number, idx: (t: ActionTargets) => number) => {
      const oh = new Float32Array(N * width);
      tg.forEach((t, r) => {
        if (idx(t) >= 0) oh[r * width + idx(t)] = 1;
      });
      return tf.sum(tf.mul(lp, tf.tensor2d(oh, [N, width])), 1);
    };
    const partLogProbs = tf.stack(
      [
        pick(typeLogProbs, T, (t) => t.type),
        pick(elementLogProbs, E, (t) => t.element),
        pick(argLogProbs, A, (t) => t.argument),
      ],
      1,
    ) as tf.Tensor2D;
    const pm = new Float32Array(N * 3);
    const rep = new Float32Array(N);
    tg.forEach((t, r) => {
      pm[r * 3] = t.type >= 0 ? 1 : 0;
      pm[r * 3 + 1] = t.element >= 0 ? 1 : 0;
      pm[r * 3 + 2] = t.argument >= 0 ? 1 : 0;
      rep[r] = t.representable ? 1 : 0;
    });
    const repT = tf.tensor1d(rep);
    const logProbs = tf.add(
      tf.mul(tf.sum(partLogProbs, 1), repT),
      tf.mul(tf.sub(1, repT), NOT_REPRESENTABLE_LOGPROB),
    ) as tf.Tensor1D;
    return {
      typeLogProbs,
      elementLogProbs,
      argLogProbs,
      targets: {
        type: Int32Array.from(tg, (t) => t.type),
        element: Int32Array.from(tg, (t) => t.element),
        argument: Int32Array.from(tg, (t) => t.argument),
      },
      partLogProbs,
      partMask: tf.tensor2d(pm, [N, 3]),
      logProbs,
      representable: tg.map((t) => t.representable),
    };
  }

  /** Type distributions of a batch, and the kept encodings for the later sub-decisions. */
  private typeDists(b: PolicyBatch): { enc: Encoded; dists: Dist[] } {
    const T = POLICY_ACTION_TYPES.length;
    const enc = tf.tidy(() => this.model.encode(b) as unknown as tf.TensorContainer) as unknown as Encoded;
    const lp = readOnce(() => maskedLogSoftmax(enc.typeLogits, tf.tensor2d(b.typeMask(), [b.size, T])));
    const dists = b.featurized.map((f, r) => ({ lp: lp.slice(r * T, (r + 1) * T), valid: f.typeMask }));
    return { enc, dists };
  }

  /** Element distributions for (row, type index) pairs. */
  private elementDists(b: PolicyBatch, enc: Encoded, pairs: Array<[number, number]>): Dist[] {
    if (pairs.length === 0) return [];
    const E = b.E;
    const mask = new Float32Array(pairs.length * E);
    pairs.forEach(([r, t], i) => {
      mask.set(b.featurized[r].elementMasks[t], i * E);
    });
    const rows = Int32Array.from(pairs, (p) => p[0]);
    const types = Int32Array.from(pairs, (p) => p[1]);
    const lp = readOnce(() =>
      maskedLogSoftmax(this.model.elementLogits(enc, rows, types), tf.tensor2d(mask, [pairs.length, E])),
    );
    return pairs.map(([r, t], i) => {
      const valid = new Uint8Array(E);
      valid.set(b.featurized[r].elementMasks[t]);
      return { lp: lp.slice(i * E, (i + 1) * E), valid };
    });
  }

  /** Argument distributions for (row, type index, element position) triples. */
  private argDists(b: PolicyBatch, enc: Encoded, triples: Array<[number, number, number]>): Dist[] {
    if (triples.length === 0) return [];
    const { A } = b;
    const K = NUM_PAIR_FEATURES;
    const mask = new Float32Array(triples.length * A);
    const pair = new Float32Array(triples.length * A * K);
    const valids = triples.map(([r, t, p], i) => {
      const m = argumentMask(b.featurized[r], t, p);
      mask.set(m, i * A);
      pair.set(pairFeatures(b.featurized[r], p), i * A * K);
      const valid = new Uint8Array(A);
      valid.set(m);
      return valid;
    });
    const rows = Int32Array.from(triples, (x) => x[0]);
    const types = Int32Array.from(triples, (x) => x[1]);
    const pos = Int32Array.from(triples, (x) => x[2]);
    const lp = readOnce(() =>
      maskedLogSoftmax(
        this.model.argLogits(enc, rows, types, pos, pair),
        tf.tensor2d(mask, [triples.length, A]),
      ),
    );
    return triples.map((_, i) => ({ lp: lp.slice(i * A, (i + 1) * A), valid: valids[i] }));
  }

  /**
   * Decodes `n` actions per state, one sub-decision at a time. With an rng, each sub-decision is
   * sampled from softmax(logp / temperature); without one, it is the argmax. Returned log-probs are
   * always under the policy itself (temperature 1), which is what importance ratios need.
   */
  private decode(batch: EncodedBatch, n: number, rng: Rng | null, temperature: number): ActionSample[][] {
    const b = this.batchOf(batch);
    const { enc, dists } = this.typeDists(b);
    try {
      const choice = dists.map((d) =>
        Array.from({ length: n }, () => ({
          t: pickIndex(d, rng, temperature),
          p: -1,
          a: -1,
          lt: 0,
          le: 0,
          la: 0,
        })),
      );
      choice.forEach((cs, r) => {
        for (const c of cs) c.lt = dists[r].lp[c.t];
      });
      const key = (...xs: number[]) => xs.join(':');
      const ePairs = new Map<string, [number, number]>();
      choice.forEach((cs, r) => {
        for (const c of cs)
          if (ELEMENT_TYPES.has(POLICY_ACTION_TYPES[c.t])) ePairs.set(key(r, c.t), [r, c.t]);
      });
      const ePairList = [...ePairs.values()];
      const eDists = new Map(this.elementDists(b, enc, ePairList).map((d, i) => [key(...ePairList[i]), d]));
      choice.forEach((cs, r) => {
        for (const c of cs) {
          const d = eDists.get(key(r, c.t));
          if (!d) continue;
          c.p = pickIndex(d, rng, temperature);
          c.le = d.lp[c.p];
        }
      });
      const aTriples = new Map<string, [number, number, number]>();
      choice.forEach((cs, r) => {
        for (const c of cs)
          if (ARGUMENT_TYPES.has(POLICY_ACTION_TYPES[c.t])) aTriples.set(key(r, c.t, c.p), [r, c.t, c.p]);
      });
      const aList = [...aTriples.values()];
      const aDists = new Map(this.argDists(b, enc, aList).map((d, i) => [key(...aList[i]), d]));
      return choice.map((cs, r) =>
        cs.map((c) => {
          const d = aDists.get(key(r, c.t, c.p));
          if (d) {
            c.a = pickIndex(d, rng, temperature);
            c.la = d.lp[c.a];
          }
          const parts: ActionSample['parts'] = { type: c.lt };
          if (c.p >= 0) parts.element = c.le;
          if (c.a >= 0) parts.argument = c.la;
          return {
            action: choiceToAction(b.featurized[r], c.t, c.p, c.a),
            logProb: c.lt + c.le + c.la,
            parts,
          };
        }),
      );
    } finally {
      tf.dispose([enc.s, enc.elem, enc.cand, enc.typeLogits, enc.elemLogits]);
    }
  }

  sample(batch: EncodedBatch, n: number, opts: { temperature?: number; rng: Rng }): ActionSample[][] {
    return this.decode(batch, n, opts.rng, opts.temperature ?? 1);
  }

  greedy(batch: EncodedBatch): ActionSample[] {
    return this.decode(batch, 1, null, 1).map((s) => s[0]);
  }

  logProb(state: PolicyState, action: Action): number {
    const b = this.encode([state]);
    try {
      return tf.tidy(() => {
        const f = this.forward(b, [action]);
        return f.representable[0] ? f.logProbs.dataSync()[0] : Number.NEGATIVE_INFINITY;
      });
    } finally {
      b.dispose();
    }
  }

  /**
   * Every action the policy can take in a state, with its log-probability (for tests and
   * diagnostics: the probabilities sum to 1).
   */
  enumerate(state: PolicyState): Array<{ action: Action; logProb: number }> {
    const b = this.encode([state]);
    const { enc, dists } = this.typeDists(b);
    try {
      const f = b.featurized[0];
      const out: Array<{ action: Action; logProb: number }> = [];
      const types = [...POLICY_ACTION_TYPES.keys()].filter((t) => f.typeMask[t]);
      const eTypes = types.filter((t) => ELEMENT_TYPES.has(POLICY_ACTION_TYPES[t]));
      const eDists = this.elementDists(
        b,
        enc,
        eTypes.map((t) => [0, t]),
      );
      const triples: Array<[number, number, number]> = [];
      for (const t of types) {
        if (!ARGUMENT_TYPES.has(POLICY_ACTION_TYPES[t])) continue;
        if (!ELEMENT_TYPES.has(POLICY_ACTION_TYPES[t])) triples.push([0, t, -1]);
        else
          f.elementMasks[t].forEach((m, p) => {
            if (m) triples.push([0, t, p]);
          });
      }
      const aDists = this.argDists(b, enc, triples);
      const aByKey = new Map(triples.map((x, i) => [`${x[1]}:${x[2]}`, aDists[i]]));
      for (const t of types) {
        const lt = dists[0].lp[t];
        const ed = ELEMENT_TYPES.has(POLICY_ACTION_TYPES[t]) ? eDists[eTypes.indexOf(t)] : null;
        const positions = ed ? [...ed.valid.keys()].filter((p) => ed.valid[p]) : [-1];
        for (const p of positions) {
          const le = ed ? ed.lp[p] : 0;
          const ad = aByKey.get(`${t}:${p}`);
          const args = ad ? [...ad.valid.keys()].filter((a) => ad.valid[a]) : [-1];
          for (const a of args)
            out.push({ action: choiceToAction(f, t, p, a), logProb: lt + le + (ad ? ad.lp[a] : 0) });
        }
      }
      return out;
    } finally {
      tf.dispose([enc.s, enc.elem, enc.cand, enc.typeLogits, enc.elemLogits]);
      b.dispose();
    }
  }

  trainableVariables(): tf.Variable[] {
    return this.model.variables();
  }

  /** The checkpoint config of this policy. */
  checkpointConfig(): CheckpointConfig {
    return {
      format: CHECKPOINT_FORMAT,
      id: this.id,
      featurizerVersion: FEATURIZER_VERSION,
      actionTypes: [...POLICY_ACTION_TYPES],
      featurizer: this.featurizer,
      model: this.model.config,
      createdAt: new Date().toISOString(),
      meta: this.meta,
    };
  }

  clone(): LocalStudentPolicy {
    return new LocalStudentPolicy(
      { id: this.id, featurizer: this.featurizer, model: this.model.config, meta: this.meta },
      this.model.snapshot(),
    );
  }

  async save(dir: string): Promise<void> {
    writeCheckpoint(dir, this.checkpointConfig(), this.model.snapshot());
  }

  dispose(): void {
    this.model.dispose();
  }
}

/** A fresh, seeded student (initializes the tfjs backend first: wasm, else cpu). */
export async function createStudentPolicy(opts: StudentPolicyOptions = {}): Promise<LocalStudentPolicy> {
  await initPolicyBackend();
  return new LocalStudentPolicy(opts);
}

/**
 * Loads a checkpoint folder (initializing the tfjs backend first). Throws InputError naming the file
 * when the folder is missing or malformed, or was written by another featurizer version.
 */
export async function loadStudentPolicy(dir: string): Promise<LocalStudentPolicy> {
  const { config, weights } = readCheckpoint(dir);
  await initPolicyBackend();
  return new LocalStudentPolicy(
    { id: config.id, featurizer: config.featurizer, model: config.model, meta: config.meta },
    weights,
  );
}

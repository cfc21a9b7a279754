import * as tf from '@tensorflow/tfjs';
import { POLICY_ACTION_TYPES } from './action-space.ts';
import { NUM_CANDIDATE_FEATURES } from './candidate-features.ts';
import { NUM_ELEMENT_FEATURES } from './element-features.ts';
import { type BagIndex, bagIndex, concatBags } from './embedding-bag.ts';
import { type FeaturizedState, NUM_STATE_FEATURES, STATE_BAGS } from './featurizer.ts';
import type { EncodedBatch, PolicyState } from './types.ts';

/**
 * A featurized batch, padded to its widest state: `E` element slots and `A` candidate slots per
 * row. Column j of the element head is the j-th kept element of that row's state (see
 * FeaturizedState.elements); column k of the argument head is its k-th candidate.
 */
export class PolicyBatch implements EncodedBatch {
  readonly size: number;
  readonly E: number;
  readonly A: number;
  /** Token bags: state texts [N*4], element labels and attributes [N*E], candidate texts and contexts [N*A]. */
  readonly bags: {
    state: BagIndex;
    elemLabel: BagIndex;
    elemAttr: BagIndex;
    cand: BagIndex;
    candCtx: BagIndex;
  };
  /** All bags concatenated in that order (the model embeds them in one op). */
  readonly allBags: BagIndex;
  readonly stateDense: tf.Tensor2D;
  readonly elemDense: tf.Tensor2D;
  readonly candDense: tf.Tensor2D;
  /** [N, E] 1 where the slot holds an element. */
  readonly elemValid: tf.Tensor2D;
  private disposed = false;

  constructor(
    readonly states: PolicyState[],
    readonly featurized: FeaturizedState[],
  ) {
    const N = featurized.length;
    this.size = N;
    const E = Math.max(1, ...featurized.map((f) => f.elements.length));
    const A = Math.max(1, ...featurized.map((f) => f.candidates.length));
    this.E = E;
    this.A = A;
    const padded = (rows: (f: FeaturizedState) => number[][], width: number) => {
      const out: number[][] = [];
      for (const f of featurized) {
        const r = rows(f);
        for (let i = 0; i < width; i++) out.push(r[i] ?? []);
      }
      return bagIndex(out);
    };
    this.bags = {
      state: padded((f) => f.stateBags, STATE_BAGS.length),
      elemLabel: padded((f) => f.elemLabelIds, E),
      elemAttr: padded((f) => f.elemAttrIds, E),
      cand: padded((f) => f.candIds, A),
      candCtx: padded((f) => f.candCtxIds, A),
    };
    const { state, elemLabel, elemAttr, cand, candCtx } = this.bags;
    this.allBags = concatBags([state, elemLabel, elemAttr, cand, candCtx]);

    const Fe = NUM_ELEMENT_FEATURES;
    const Fc = NUM_CANDIDATE_FEATURES;
    const sd = new Float32Array(N * NUM_STATE_FEATURES);
    const ed = new Float32Array(N * E * Fe);
    const cd = new Float32Array(N * A * Fc);
    const ev = new Float32Array(N * E);
    featurized.forEach((f, r) => {
      sd.set(f.stateDense, r * NUM_STATE_FEATURES);
      ed.set(f.elemDense, r * E * Fe);
      cd.set(f.candDense, r * A * Fc);
      ev.fill(1, r * E, r * E + f.elements.length);
    });
    this.stateDense = tf.keep(tf.tensor2d(sd, [N, NUM_STATE_FEATURES]));
    this.elemDense = tf.keep(tf.tensor2d(ed, [N * E, Fe]));
    this.candDense = tf.keep(tf.tensor2d(cd, [N * A, Fc]));
    this.elemValid = tf.keep(tf.tensor2d(ev, [N, E]));
  }

  /** [N, numTypes] type mask as numbers. */
  typeMask(): Float32Array {
    const T = POLICY_ACTION_TYPES.length;
    const out = new Float32Array(this.size * T);
    this.featurized.forEach((f, r) => {
      for (let t = 0; t < T; t++) out[r * T + t] = f.typeMask[t];
    });
    return out;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    tf.dispose([this.stateDense, this.elemDense, this.candDense, this.elemValid]);
  }
}

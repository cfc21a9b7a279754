import * as tf from '@tensorflow/tfjs';
import { hashString } from '../core/rng.ts';
import { ELEMENT_TYPES, POLICY_ACTION_TYPES } from './action-space.ts';
import type { PolicyBatch } from './batch.ts';
import { NUM_CANDIDATE_FEATURES, NUM_PAIR_FEATURES } from './candidate-features.ts';
import { NUM_ELEMENT_FEATURES } from './element-features.ts';
import { embeddingBag } from './embedding-bag.ts';
import { NUM_STATE_FEATURES, STATE_BAGS } from './featurizer.ts';
import { matMul2d as mm } from './ops.ts';

/**
 * The network: hashed token embedding bags -> small MLPs.
 *
 *   element   e_j = MLP2([bag(label_j); bag(attrs_j); dense_j])
 *   candidate c_k = MLP2([bag(text_k); bag(context_k); dense_k])
 *   state     s   = relu(W [relu(W0 [bag(task); bag(page); bag(memory); bag(history); dense]); mean_j e_j])
 *   element   f_t(j) = w . relu(e_j * (1 + G [s; t]) + R [s; t])
 *   type      logit_t = W_t s + logsumexp_{j valid for t} f_t(j)   (types with an element)
 *             logit_t = W_t s                                     (the others)
 *   argument  logit_k = w . relu(c_k * (1 + G [s; t; e*]) + R [s; t; e*] + P pair_k)
 *
 * where t is a learned embedding of the action type and e* the chosen element (zero when the type
 * has none). The type and element heads are one joint softmax over (type, element) pairs,
 * p(t, j) ∝ exp(W_t s + f_t(j)), factorized exactly as p(t) p(j | t): whether to type, choose or
 * click depends on which elements are there (an empty field the task names a value for), and a
 * type head that only sees a pooled state cannot tell. The heads condition the per-item encodings on the state by feature-wise gating and
 * shifting (FiLM): as expressive as the encoders allow, and far cheaper than an MLP over every
 * (state, item) concatenation, which matters with ~100 elements and candidates per state.
 */
export interface ModelConfig {
  embedDim: number;
  hidden: number;
  typeDim: number;
  /** Seeds every initial weight. */
  seed: number;
}

export const DEFAULT_MODEL: ModelConfig = { embedDim: 32, hidden: 64, typeDim: 16, seed: 0 };

/** Intermediate encodings of a batch (tensors owned by the caller's tidy scope). */
export interface Encoded {
  N: number;
  E: number;
  A: number;
  /** [N, H] */
  s: tf.Tensor2D;
  /** [N, E, H] */
  elem: tf.Tensor3D;
  /** [N, A, H] */
  cand: tf.Tensor3D;
  /** [N, T] raw type logits. */
  typeLogits: tf.Tensor2D;
  /** [N, T, E] raw element logits per type (zeros for types without an element). */
  elemLogits: tf.Tensor3D;
}

/** Type indices that choose an element. */
const ELEMENT_TYPE_INDICES = POLICY_ACTION_TYPES.flatMap((t, i) => (ELEMENT_TYPES.has(t) ? [i] : []));

/** Shapes of every weight, by logical name (init: 'emb' normal, 'b*' zeros, else Glorot normal). */
export function weightShapes(m: ModelConfig, buckets: number): Record<string, number[]> {
  const { embedDim: D, hidden: H, typeDim: TE } = m;
  const T = POLICY_ACTION_TYPES.length;
  return {
    emb: [buckets, D],
    el_w1: [2 * D + NUM_ELEMENT_FEATURES, H],
    el_b1: [H],
    el_w2: [H, H],
    el_b2: [H],
    st_w1: [STATE_BAGS.length * D + NUM_STATE_FEATURES, H],
    st_b1: [H],
    st_w2: [2 * H, H],
    st_b2: [H],
    ty_w: [H, T],
    ty_b: [T],
    ty_emb: [T, TE],
    ca_w1: [2 * D + NUM_CANDIDATE_FEATURES, H],
    ca_b1: [H],
    ca_w2: [H, H],
    ca_b2: [H],
    es_g: [H + TE, H],
    es_r: [H + TE, H],
    es_b: [H],
    es_wo: [H, 1],
    es_bo: [1],
    as_g: [2 * H + TE, H],
    as_r: [2 * H + TE, H],
    as_wp: [NUM_PAIR_FEATURES, H],
    as_b: [H],
    as_wo: [H, 1],
    as_bo: [1],
  };
}

let instances = 0;

/** The weights plus the functions that compute logits from a batch. */
export class PolicyModel {
  readonly weights: Record<string, tf.Variable>;

  constructor(
    readonly config: ModelConfig,
    readonly buckets: number,
    init?: Record<string, Float32Array>,
  ) {
    const prefix = `student${instances++}`;
    const shapes = weightShapes(config, buckets);
    this.weights = {};
    for (const [name, shape] of Object.entries(shapes)) {
      const value = tf.tidy(() => {
        if (init) {
          const data = init[name];
          if (!data) throw new Error(`checkpoint has no weight "${name}"`);
          return tf.tensor(data, shape);
        }
        const seed = hashString(`${config.seed}:${name}`);
        if (name === 'emb') return tf.randomNormal(shape, 0, 1 / Math.sqrt(config.embedDim), 'float32', seed);
        if (shape.length === 1) return tf.zeros(shape);
        const std =
          Math.sqrt(2 / (shape[0] + shape[1])) *
          (name.endsWith('_wo') || name === 'ty_w' ? 0.5 : name.endsWith('_g') ? 0.2 : 1);
        return tf.randomNormal(shape, 0, std, 'float32', seed);
      });
      this.weights[name] = tf.variable(value, true, `${prefix}/${name}`);
      value.dispose();
    }
  }

  variables(): tf.Variable[] {
    return Object.values(this.weights);
  }

  /** Encodes states, elements and candidates; call inside tf.tidy. */
  encode(b: PolicyBatch): Encoded {
    const w = this.weights;
    const D = this.config.embedDim;
    const H = this.config.hidden;
    const { size: N, E, A } = b;
    // One bag op for every text of the batch (one table read, one gradient), split afterwards.
    const groups = [b.bags.state, b.bags.elemLabel, b.bags.elemAttr, b.bags.cand, b.bags.candCtx];
    const [stateFlat, elemLabel, elemAttr, cand, candCtx] = tf.split(
      embeddingBag(w.emb as tf.Tensor2D, b.allBags),
      groups.map((g) => g.numSegments),
      0,
    );
    const stateBags = stateFlat.reshape([N, STATE_BAGS.length * D]);
    const elemX = tf.concat([elemLabel, elemAttr, b.elemDense], 1);
    const elemFlat = tf.relu(tf.add(mm(tf.relu(tf.add(mm(elemX, w.el_w1), w.el_b1)), w.el_w2), w.el_b2));
    const elem = tf.mul(elemFlat.reshape([N, E, H]), b.elemValid.reshape([N, E, 1])) as tf.Tensor3D;
    // Mean over real elements as one batched product (padding rows are zero and get weight 0).
    const counts = b.featurized.map((f) => Math.max(1, f.elements.length));
    const weights = tf.div(b.elemValid, tf.tensor2d(counts, [N, 1])).reshape([N, 1, E]);
    const pool = tf.matMul(weights, elem).reshape([N, H]);
    const s0 = tf.relu(tf.add(mm(tf.concat([stateBags, b.stateDense], 1), w.st_w1), w.st_b1));
    const s = tf.relu(tf.add(mm(tf.concat([s0, pool], 1), w.st_w2), w.st_b2)) as tf.Tensor2D;
    const T = POLICY_ACTION_TYPES.length;
    // Element logits of every element type, and their masked log-sum-exp added to the type logits.
    const perType: tf.Tensor2D[] = [];
    const lse: tf.Tensor1D[] = [];
    for (let t = 0; t < T; t++) {
      if (!ELEMENT_TYPE_INDICES.includes(t)) {
        perType.push(tf.zeros([N, E]));
        lse.push(tf.zeros([N]));
        continue;
      }
      const logits = this.elementHead(s, elem, new Int32Array(N).fill(t));
      const mask = new Float32Array(N * E);
      b.featurized.forEach((f, r) => {
        mask.set(f.elementMasks[t], r * E);
      });
      perType.push(logits);
      lse.push(tf.logSumExp(tf.add(logits, tf.mul(tf.sub(1, tf.tensor2d(mask, [N, E])), -1e9)), 1));
    }
    const typeLogits = tf.add(tf.add(mm(s, w.ty_w), w.ty_b), tf.stack(lse, 1)) as tf.Tensor2D;
    const elemLogits = tf.stack(perType, 1) as tf.Tensor3D;
    const candX = tf.concat([cand, candCtx, b.candDense], 1);
    const candFlat = tf.relu(tf.add(mm(tf.relu(tf.add(mm(candX, w.ca_w1), w.ca_b1)), w.ca_w2), w.ca_b2));
    return { N, E, A, s, elem, cand: candFlat.reshape([N, A, H]) as tf.Tensor3D, typeLogits, elemLogits };
  }

  /** [N, E] element logits of states `s` and encodings `elem` for one type per row. */
  private elementHead(s: tf.Tensor2D, elem: tf.Tensor3D, types: Int32Array): tf.Tensor2D {
    const w = this.weights;
    const H = this.config.hidden;
    const [P, E] = elem.shape;
    const ctx = tf.concat([s, this.typeEmb(types)], 1);
    const gate = tf.add(mm(ctx, w.es_g), 1).reshape([P, 1, H]);
    const shift = tf.add(mm(ctx, w.es_r), w.es_b).reshape([P, 1, H]);
    const h = tf.relu(tf.add(tf.mul(elem, gate), shift)).reshape([P * E, H]);
    return tf.add(mm(h, w.es_wo), w.es_bo).reshape([P, E]);
  }

  private typeEmb(types: Int32Array): tf.Tensor2D {
    return mm(
      tf.oneHot(tf.tensor1d(types, 'int32'), POLICY_ACTION_TYPES.length),
      this.weights.ty_emb,
    ) as tf.Tensor2D;
  }

  /** Rows of a [N, ...] tensor, or the tensor itself when `rows` is null (the identity). */
  private rows<T extends tf.Tensor>(x: T, rows: Int32Array | null): T {
    return rows ? (tf.gather(x, tf.tensor1d(rows, 'int32')) as T) : x;
  }

  /** [P, E] raw element logits for (row, type) pairs; `rows` null means rows 0..N-1. */
  elementLogits(enc: Encoded, rows: Int32Array | null, types: Int32Array): tf.Tensor2D {
    const T = POLICY_ACTION_TYPES.length;
    const P = types.length;
    // The encode step computed them for every element type: pick the type by a one-hot product.
    const pick = tf.oneHot(tf.tensor1d(types, 'int32'), T).reshape([P, 1, T]) as tf.Tensor3D;
    return tf.matMul(pick, this.rows(enc.elemLogits, rows)).reshape([P, enc.E]);
  }

  /**
   * [P, A] raw argument logits for (row, type, element position) triples; `pair` holds the
   * candidate-by-element features, [P * A * NUM_PAIR_FEATURES]. Position -1 means no element.
   */
  argLogits(
    enc: Encoded,
    rows: Int32Array | null,
    types: Int32Array,
    elemPos: Int32Array,
    pair: Float32Array,
  ): tf.Tensor2D {
    const w = this.weights;
    const H = this.config.hidden;
    const P = types.length;
    const { E, A } = enc;
    const e = this.rows(enc.elem, rows);
    const sel = new Float32Array(P * E);
    elemPos.forEach((p, i) => {
      if (p >= 0) sel[i * E + p] = 1;
    });
    // A one-hot product picks the chosen element without a gather (whose gradient wasm lacks).
    const eSel = tf.matMul(tf.tensor3d(sel, [P, 1, E]), e).reshape([P, H]);
    const ctx = tf.concat([this.rows(enc.s, rows), eSel, this.typeEmb(types)], 1);
    const gate = tf.add(mm(ctx, w.as_g), 1).reshape([P, 1, H]);
    const shift = tf.add(mm(ctx, w.as_r), w.as_b).reshape([P, 1, H]);
    const pairTerm = mm(tf.tensor2d(pair, [P * A, NUM_PAIR_FEATURES]), w.as_wp).reshape([P, A, H]);
    const h = tf
      .relu(tf.add(tf.add(tf.mul(this.rows(enc.cand, rows), gate), shift), pairTerm))
      .reshape([P * A, H]);
    return tf.add(mm(h, w.as_wo), w.as_bo).reshape([P, A]);
  }

  /** Weight values by logical name (for checkpoints and clones). */
  snapshot(): Record<string, Float32Array> {
    const out: Record<string, Float32Array> = {};
    for (const [k, v] of Object.entries(this.weights))
      out[k] = Float32Array.from(v.dataSync() as Float32Array);
    return out;
  }

  dispose(): void {
    for (const v of Object.values(this.weights)) v.dispose();
  }
}

/** Masks logits (invalid entries get a large negative number) and applies log-softmax per row. */
export function maskedLogSoftmax(logits: tf.Tensor2D, mask: tf.Tensor2D): tf.Tensor2D {
  return tf.logSoftmax(tf.add(logits, tf.mul(tf.sub(1, mask), -1e9))) as tf.Tensor2D;
}

import * as tf from '@tensorflow/tfjs';

/**
 * A weighted embedding bag as one custom op: out[s] = sum_i w_i * table[ids_i] over the tokens of
 * segment s. Forward and gradient run in plain JS over the flat token lists, so no [tokens, dim]
 * intermediate is materialized and no backend-specific scatter kernel is needed.
 */
export interface BagIndex {
  ids: Int32Array;
  seg: Int32Array;
  weights: Float32Array;
  numSegments: number;
}

/** Builds a bag index from per-segment id lists; weights are 1/count (mean pooling). */
export function bagIndex(bags: readonly (readonly number[])[]): BagIndex {
  let total = 0;
  for (const b of bags) total += b.length;
  const ids = new Int32Array(total);
  const seg = new Int32Array(total);
  const weights = new Float32Array(total);
  let k = 0;
  bags.forEach((b, s) => {
    const w = b.length ? 1 / b.length : 0;
    for (const id of b) {
      ids[k] = id;
      seg[k] = s;
      weights[k] = w;
      k++;
    }
  });
  return { ids, seg, weights, numSegments: bags.length };
}

/** Concatenates bag indices (segments of later ones follow those of earlier ones). */
export function concatBags(parts: readonly BagIndex[]): BagIndex {
  let total = 0;
  for (const p of parts) total += p.ids.length;
  const ids = new Int32Array(total);
  const seg = new Int32Array(total);
  const weights = new Float32Array(total);
  let k = 0;
  let segOffset = 0;
  for (const p of parts) {
    ids.set(p.ids, k);
    weights.set(p.weights, k);
    for (let i = 0; i < p.seg.length; i++) seg[k + i] = p.seg[i] + segOffset;
    k += p.ids.length;
    segOffset += p.numSegments;
  }
  return { ids, seg, weights, numSegments: segOffset };
}

/** [numSegments, dim] bag embeddings; differentiable with respect to `table`. */
export function embeddingBag(table: tf.Tensor2D, bag: BagIndex): tf.Tensor2D {
  const [rows, dim] = table.shape;
  const op = tf.customGrad(((t: tf.Tensor) => {
    const tv = t.dataSync() as Float32Array;
    const out = new Float32Array(bag.numSegments * dim);
    const { ids, seg, weights } = bag;
    for (let i = 0; i < ids.length; i++) {
      const src = ids[i] * dim;
      const dst = seg[i] * dim;
      const w = weights[i];
      for (let d = 0; d < dim; d++) out[dst + d] += w * tv[src + d];
    }
    return {
      value: tf.tensor2d(out, [bag.numSegments, dim]),
      gradFunc: (dy: tf.Tensor) => {
        const g = dy.dataSync() as Float32Array;
        const dt = new Float32Array(rows * dim);
        for (let i = 0; i < ids.length; i++) {
          const src = seg[i] * dim;
          const dst = ids[i] * dim;
          const w = weights[i];
          for (let d = 0; d < dim; d++) dt[dst + d] += w * g[src + d];
        }
        return tf.tensor2d(dt, [rows, dim]);
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return op(table) as tf.Tensor2D;
}

import * as tf from '@tensorflow/tfjs';

/**
 * Adam with global-norm gradient clipping, updating the weights in plain JS. tfjs's optimizer
 * issues about ten small kernels per variable per step, which on a CPU backend costs more than the
 * arithmetic: one pass over Float32Arrays is several times faster for a model this size.
 */
export class JsAdam {
  private readonly m = new Map<string, Float32Array>();
  private readonly v = new Map<string, Float32Array>();
  private t = 0;

  constructor(
    private readonly vars: readonly tf.Variable[],
    /** The learning rate of the next step (trainers may change it: schedules). */
    public lr: number,
    private readonly beta1 = 0.9,
    private readonly beta2 = 0.999,
    private readonly eps = 1e-8,
  ) {}

  /**
   * Applies one update from `grads` (keyed by variable name, as tf.variableGrads returns them),
   * first rescaling them to at most `clipNorm` global norm. Returns the norm before clipping.
   */
  step(grads: tf.NamedTensorMap, clipNorm = Number.POSITIVE_INFINITY): number {
    const gs = new Map<string, Float32Array>();
    let sq = 0;
    for (const v of this.vars) {
      const g = grads[v.name];
      if (!g) continue;
      const data = g.dataSync() as Float32Array;
      for (let i = 0; i < data.length; i++) sq += data[i] * data[i];
      gs.set(v.name, data);
    }
    const norm = Math.sqrt(sq);
    const scale = Number.isFinite(norm) && norm > clipNorm ? clipNorm / norm : 1;
    this.t++;
    const { beta1: b1, beta2: b2, eps } = this;
    const stepSize = (this.lr * Math.sqrt(1 - b2 ** this.t)) / (1 - b1 ** this.t);
    for (const v of this.vars) {
      const g = gs.get(v.name);
      if (!g) continue;
      let m = this.m.get(v.name);
      let s = this.v.get(v.name);
      if (!m || !s) {
        m = new Float32Array(g.length);
        s = new Float32Array(g.length);
        this.m.set(v.name, m);
        this.v.set(v.name, s);
      }
      const w = Float32Array.from(v.dataSync() as Float32Array);
      for (let i = 0; i < g.length; i++) {
        const gi = g[i] * scale;
        m[i] = b1 * m[i] + (1 - b1) * gi;
        s[i] = b2 * s[i] + (1 - b2) * gi * gi;
        w[i] -= (stepSize * m[i]) / (Math.sqrt(s[i]) + eps);
      }
      const next = tf.tensor(w, v.shape, 'float32');
      v.assign(next);
      next.dispose();
    }
    return norm;
  }
}

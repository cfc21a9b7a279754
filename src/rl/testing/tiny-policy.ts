import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import type { Action, ActionType } from '../../core/action.ts';
import { hashString, Rng } from '../../core/rng.ts';
import type {
  ActionSample,
  EncodedBatch,
  PolicyForward,
  PolicyState,
  StudentPolicy,
} from '../../policy/types.ts';

/**
 * A small but genuine softmax policy implementing StudentPolicy, for rl/ tests only (the real student
 * lives in policy/). Features are hashed bags of words; three bilinear heads give
 *   type     logits  s·W_t + b_t
 *   element  logits  e_j · (s·W_e + U_e[type])
 *   argument logits  a_k · (s·W_a + U_a[type] + e_target·V_a)
 * over the state features s, element features e_j and argument-candidate features a_k.
 * Argument candidates are the objective's words and adjacent word pairs.
 */

const SUPPORTED: readonly ActionType[] = ['click', 'input', 'select_dropdown', 'done', 'go_back'];
const NEEDS_ELEMENT = new Set<ActionType>(['click', 'input', 'select_dropdown']);
const NEEDS_ARG = new Set<ActionType>(['input', 'select_dropdown', 'done']);
const NEG = -1e9;

export interface TinyPolicyOptions {
  /** Action types, in head order. Default click, input, done. */
  actionTypes?: ActionType[];
  /** Hashed feature width. Default 16. */
  dim?: number;
  /** Seeds the initial weights. Default 0. */
  seed?: number;
  /** Initial weight scale. Default 0.1. */
  initScale?: number;
}

function words(s: string): string[] {
  return s.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

function featurize(tokens: string[], dim: number, out: Float32Array, offset: number): void {
  out[offset] = 1; // bias feature
  for (const t of tokens) out[offset + 1 + (hashString(t) % (dim - 1))] += 1 / Math.sqrt(tokens.length || 1);
}

/** Argument candidates of a state: the objective's words and adjacent pairs (original casing). */
export function argCandidates(state: PolicyState): string[] {
  const w = state.task.objective.match(/[A-Za-z0-9]+/g) ?? [];
  const out = new Set<string>(w);
  for (let i = 0; i + 1 < w.length; i++) out.add(`${w[i]} ${w[i + 1]}`);
  return [...out];
}

interface TinyBatch extends EncodedBatch {
  s: tf.Tensor2D; // [N, D]
  elem: tf.Tensor3D; // [N, E, D]
  elemMask: tf.Tensor2D; // [N, E]
  arg: tf.Tensor3D; // [N, A, D]
  argMask: tf.Tensor2D; // [N, A]
  typeMask: tf.Tensor2D; // [N, T]
  cands: string[][];
}

export class TinyPolicy implements StudentPolicy {
  readonly id: string;
  readonly actionTypes: readonly ActionType[];
  readonly dim: number;
  private readonly vars: Record<'Wt' | 'bt' | 'We' | 'Ue' | 'Wa' | 'Ua' | 'Va', tf.Variable>;

  constructor(opts: TinyPolicyOptions = {}, weights?: Record<string, tf.Tensor>) {
    this.actionTypes = opts.actionTypes ?? ['click', 'input', 'done'];
    for (const t of this.actionTypes)
      if (!SUPPORTED.includes(t)) throw new Error(`TinyPolicy: unsupported type ${t}`);
    this.dim = opts.dim ?? 16;
    this.id = `tiny-${this.actionTypes.join('-')}-${this.dim}`;
    const D = this.dim;
    const T = this.actionTypes.length;
    const rng = new Rng(opts.seed ?? 0);
    const scale = opts.initScale ?? 0.1;
    const init = (name: string, shape: number[]) => {
      if (weights?.[name]) return tf.variable(weights[name], true); // shares the data until either side is assigned
      const n = shape.reduce((a, b) => a * b, 1);
      const v = new Float32Array(n);
      for (let i = 0; i < n; i++) v[i] = (rng.next() * 2 - 1) * scale;
      // tidy frees the temporary tensor; the variable keeps its own reference to the data
      return tf.tidy(() => tf.variable(tf.tensor(v, shape), true));
    };
    this.vars = {
      Wt: init('Wt', [D, T]),
      bt: init('bt', [T]),
      We: init('We', [D, D]),
      Ue: init('Ue', [T, D]),
      Wa: init('Wa', [D, D]),
      Ua: init('Ua', [T, D]),
      Va: init('Va', [D, D]),
    };
  }

  encode(states: PolicyState[]): TinyBatch {
    const D = this.dim;
    const T = this.actionTypes.length;
    const N = states.length;
    const E = Math.max(2, ...states.map((s) => s.observation.elements.length));
    const cands = states.map(argCandidates);
    const A = Math.max(2, ...cands.map((c) => c.length));
    const s = new Float32Array(N * D);
    const elem = new Float32Array(N * E * D);
    const elemMask = new Float32Array(N * E);
    const arg = new Float32Array(N * A * D);
    const argMask = new Float32Array(N * A);
    const typeMask = new Float32Array(N * T);
    states.forEach((st, i) => {
      featurize([...words(st.task.objective), ...words(st.observation.url)], D, s, i * D);
      st.observation.elements.forEach((el, j) => {
        featurize([el.tag, ...words(el.name), ...words(el.text)], D, elem, (i * E + j) * D);
        elemMask[i * E + j] = 1;
      });
      cands[i].forEach((c, k) => {
        featurize(words(c), D, arg, (i * A + k) * D);
        argMask[i * A + k] = 1;
      });
      this.actionTypes.forEach((t, k) => {
        const ok =
          (!NEEDS_ELEMENT.has(t) || st.observation.elements.length > 0) &&
          (!NEEDS_ARG.has(t) || cands[i].length > 0);
        typeMask[i * T + k] = ok ? 1 : 0;
      });
    });
    const tensors = {
      s: tf.tensor2d(s, [N, D]),
      elem: tf.tensor3d(elem, [N, E, D]),
      elemMask: tf.tensor2d(elemMask, [N, E]),
      arg: tf.tensor3d(arg, [N, A, D]),
      argMask: tf.tensor2d(argMask, [N, A]),
      typeMask: tf.tensor2d(typeMask, [N, T]),
    };
    return {
      size: N,
      states,
      cands,
      ...tensors,
      dispose: () => tf.dispose(Object.values(tensors)),
    };
  }

  private targetsOf(b: TinyBatch, actions: Action[]) {
    const N = b.size;
    const type = new Int32Array(N).fill(-1);
    const element = new Int32Array(N).fill(-1);
    const argument = new Int32Array(N).fill(-1);
    const representable: boolean[] = [];
    actions.forEach((a, i) => {
      const t = this.actionTypes.indexOf(a.type);
      let ok = t >= 0;
      type[i] = t;
      if (ok && NEEDS_ELEMENT.has(a.type)) {
        const idx = (a as { index: number }).index;
        element[i] = b.states[i].observation.elements.findIndex((e) => e.index === idx);
        ok = element[i] >= 0;
      }
      if (ok && NEEDS_ARG.has(a.type)) {
        const text = (a as { text: string }).text;
        argument[i] = b.cands[i].indexOf(text);
        ok = argument[i] >= 0;
      }
      representable.push(ok);
    });
    return { type, element, argument, representable };
  }

  /** Masked log-softmax: invalid entries get a large negative logit. */
  private static maskedLogSoftmax(logits: tf.Tensor2D, mask: tf.Tensor2D): tf.Tensor2D {
    return tf.logSoftmax(tf.add(logits, tf.mul(tf.sub(1, mask), NEG))) as tf.Tensor2D;
  }

  forward(batch: EncodedBatch, actions: Action[]): PolicyForward {
    const b = batch as TinyBatch;
    const { Wt, bt, We, Ue, Wa, Ua, Va } = this.vars;
    const T = this.actionTypes.length;
    const { type, element, argument, representable } = this.targetsOf(b, actions);
    const E = b.elem.shape[1];
    const A = b.arg.shape[1];
    const typeLogProbs = TinyPolicy.maskedLogSoftmax(
      tf.add(tf.matMul(b.s, Wt), bt) as tf.Tensor2D,
      b.typeMask,
    );
    const tHot = tf
      .oneHot(
        tf.tensor1d(
          Array.from(type, (t) => Math.max(t, 0)),
          'int32',
        ),
        T,
      )
      .toFloat() as tf.Tensor2D;
    const q = tf.add(tf.matMul(b.s, We), tf.matMul(tHot, Ue)) as tf.Tensor2D;
    const elemLogits = tf.sum(tf.mul(b.elem, tf.expandDims(q, 1)), 2) as tf.Tensor2D;
    const elementLogProbs = TinyPolicy.maskedLogSoftmax(elemLogits, b.elemMask);
    const eHot = tf.mul(
      tf
        .oneHot(
          tf.tensor1d(
            Array.from(element, (e) => Math.max(e, 0)),
            'int32',
          ),
          E,
        )
        .toFloat(),
      tf.tensor2d(
        Array.from(element, (e) => (e >= 0 ? 1 : 0)),
        [b.size, 1],
      ),
    ) as tf.Tensor2D;
    const eTarget = tf.sum(tf.mul(b.elem, tf.expandDims(eHot, 2)), 1) as tf.Tensor2D;
    const r = tf.addN([tf.matMul(b.s, Wa), tf.matMul(tHot, Ua), tf.matMul(eTarget, Va)]) as tf.Tensor2D;
    const argLogits = tf.sum(tf.mul(b.arg, tf.expandDims(r, 1)), 2) as tf.Tensor2D;
    const argLogProbs = TinyPolicy.maskedLogSoftmax(argLogits, b.argMask);
    const pick = (lp: tf.Tensor2D, idx: Int32Array, width: number) =>
      tf.sum(
        tf.mul(
          lp,
          tf
            .oneHot(
              tf.tensor1d(
                Array.from(idx, (v) => Math.max(v, 0)),
                'int32',
              ),
              width,
            )
            .toFloat(),
        ),
        1,
      );
    const presence = [type, element, argument].map((idx, h) =>
      Array.from(idx, (v, i) => (v >= 0 && (h === 0 || type[i] >= 0) ? 1 : 0)),
    );
    const partMask = tf.tensor2d(
      Array.from({ length: b.size }, (_, i) => presence.map((p) => p[i])),
      [b.size, 3],
    );
    const partLogProbs = tf.mul(
      tf.stack(
        [pick(typeLogProbs, type, T), pick(elementLogProbs, element, E), pick(argLogProbs, argument, A)],
        1,
      ),
      partMask,
    ) as tf.Tensor2D;
    const logProbs = tf.add(
      tf.sum(partLogProbs, 1),
      tf.tensor1d(representable.map((ok) => (ok ? 0 : NEG))),
    ) as tf.Tensor1D;
    return {
      typeLogProbs,
      elementLogProbs,
      argLogProbs,
      targets: { type, element, argument },
      partLogProbs,
      partMask: partMask as tf.Tensor2D,
      logProbs,
      representable,
    };
  }

  /** All sub-decision logits for every type (and element) in one pass, as JS arrays. */
  private tables(b: TinyBatch) {
    return tf.tidy(() => {
      const { Wt, bt, We, Ue, Wa, Ua, Va } = this.vars;
      const typeLp = TinyPolicy.maskedLogSoftmax(tf.add(tf.matMul(b.s, Wt), bt) as tf.Tensor2D, b.typeMask);
      // element logits per type: [N, T, E]
      const q = tf.add(tf.expandDims(tf.matMul(b.s, We), 1), tf.expandDims(Ue, 0)); // [N,T,D]
      const elemLogits = tf.matMul(q, b.elem, false, true); // [N,T,E]
      const elemBias = tf.expandDims(tf.mul(tf.sub(1, b.elemMask), NEG), 1);
      // argument logits: a·(sW_a) [N,1,A] + a·U_a[t] [N,T,A] + a·(e_j V_a) [N,E,A]
      const argS = tf.matMul(tf.expandDims(tf.matMul(b.s, Wa), 1), b.arg, false, true); // [N,1,A]
      const argT = tf.matMul(tf.tile(tf.expandDims(Ua, 0), [b.size, 1, 1]), b.arg, false, true); // [N,T,A]
      const eV = tf.matMul(tf.reshape(b.elem, [-1, this.dim]), Va).reshape(b.elem.shape); // [N,E,D]
      const argE = tf.matMul(eV, b.arg, false, true); // [N,E,A]
      const argBias = tf.expandDims(tf.mul(tf.sub(1, b.argMask), NEG), 1);
      return {
        typeLp: typeLp.arraySync() as number[][],
        elem: tf.add(elemLogits, elemBias).arraySync() as number[][][],
        argS: tf.add(argS, argBias).arraySync() as number[][][],
        argT: argT.arraySync() as number[][][],
        argE: argE.arraySync() as number[][][],
      };
    });
  }

  private decodeWith(
    tb: ReturnType<TinyPolicy['tables']>,
    b: TinyBatch,
    i: number,
    pickFn: (logits: number[]) => [number, number],
  ): ActionSample {
    const [t, lpT] = pickFn(tb.typeLp[i]);
    const type = this.actionTypes[t];
    const parts: ActionSample['parts'] = { type: lpT };
    let e = -1;
    let el: number | undefined;
    if (NEEDS_ELEMENT.has(type)) {
      const [j, lpE] = pickFn(tb.elem[i][t]);
      e = j;
      el = b.states[i].observation.elements[j].index;
      parts.element = lpE;
    }
    let text = '';
    if (NEEDS_ARG.has(type)) {
      const logits = tb.argS[i][0].map((v, k) => v + tb.argT[i][t][k] + (e >= 0 ? tb.argE[i][e][k] : 0));
      const [k, lpA] = pickFn(logits);
      text = b.cands[i][k];
      parts.argument = lpA;
    }
    const action: Action =
      type === 'click'
        ? { type, index: el! }
        : type === 'input'
          ? { type, index: el!, text, clear: true }
          : type === 'select_dropdown'
            ? { type, index: el!, text }
            : type === 'done'
              ? { type, text, success: true }
              : { type: 'go_back' };
    const logProb = parts.type + (parts.element ?? 0) + (parts.argument ?? 0);
    return { action, logProb, parts };
  }

  sample(batch: EncodedBatch, n: number, opts: { temperature?: number; rng: Rng }): ActionSample[][] {
    const b = batch as TinyBatch;
    const temp = opts.temperature ?? 1;
    const tb = this.tables(b);
    const draw = (logits: number[]): [number, number] => {
      const z = logits.map((v) => v / temp);
      const m = Math.max(...z);
      const lse = m + Math.log(z.reduce((a, v) => a + Math.exp(v - m), 0));
      let u = opts.rng.next();
      let k = 0;
      for (; k < z.length - 1; k++) {
        u -= Math.exp(z[k] - lse);
        if (u < 0) break;
      }
      return [k, z[k] - lse];
    };
    return b.states.map((_, i) => Array.from({ length: n }, () => this.decodeWith(tb, b, i, draw)));
  }

  greedy(batch: EncodedBatch): ActionSample[] {
    const b = batch as TinyBatch;
    const argmax = (logits: number[]): [number, number] => {
      const m = Math.max(...logits);
      const lse = m + Math.log(logits.reduce((a, v) => a + Math.exp(v - m), 0));
      const k = logits.indexOf(m);
      return [k, m - lse];
    };
    const tb = this.tables(b);
    return b.states.map((_, i) => this.decodeWith(tb, b, i, argmax));
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

  trainableVariables(): tf.Variable[] {
    return Object.values(this.vars);
  }

  clone(): TinyPolicy {
    return new TinyPolicy({ actionTypes: [...this.actionTypes], dim: this.dim }, this.vars);
  }

  async save(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    const weights = Object.fromEntries(
      Object.entries(this.vars).map(([k, v]) => [k, { shape: v.shape, data: Array.from(v.dataSync()) }]),
    );
    await writeFile(
      join(dir, 'tiny-policy.json'),
      JSON.stringify({ actionTypes: this.actionTypes, dim: this.dim, weights }),
    );
  }

  dispose(): void {
    tf.dispose(Object.values(this.vars));
  }
}

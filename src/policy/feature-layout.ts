/**
 * A named layout of a dense feature vector. Every featurizer (element, match, candidate, pair,
 * state, progress) writes its values as a record of name -> value and every reader asks for a
 * named column, so reordering, adding or removing a feature cannot silently shift what another
 * file reads: a record whose names differ from the layout's throws, and `col` of an unknown name
 * is a type error (and throws at run time).
 */
export class FeatureLayout<N extends string> {
  /** The feature names, in the order the model reads them. */
  readonly names: readonly N[];
  /** Number of features (columns). */
  readonly size: number;
  private readonly cols: ReadonlyMap<string, number>;

  constructor(names: readonly N[]) {
    this.names = names;
    this.size = names.length;
    const cols = new Map<string, number>();
    names.forEach((n, i) => {
      if (cols.has(n)) throw new Error(`feature layout names "${n}" twice`);
      cols.set(n, i);
    });
    this.cols = cols;
  }

  /** The column of a named feature. */
  col(name: N): number {
    const i = this.cols.get(name);
    if (i === undefined) throw new Error(`no feature named "${name}"`);
    return i;
  }

  /** The value of a named feature in row `row` of a row-major matrix with this layout. */
  read(data: ArrayLike<number>, row: number, name: N): number {
    return data[row * this.size + this.col(name)];
  }

  /**
   * Writes one record into row `row` of a row-major matrix. Throws when the record lacks a
   * feature of the layout, has one the layout does not name, or a value is not a number.
   */
  write(out: Float32Array, row: number, values: FeatureRecord<N>): void {
    const base = row * this.size;
    const names = this.names;
    for (let i = 0; i < names.length; i++) {
      const v = values[names[i]];
      if (typeof v !== 'number') throw new Error(`feature "${names[i]}" has no value (got ${String(v)})`);
      out[base + i] = v;
    }
    let n = 0;
    for (const _ in values) n++;
    if (n !== names.length) {
      const extra = Object.keys(values).filter((k) => !this.cols.has(k));
      throw new Error(`features not in the layout: ${extra.join(', ')}`);
    }
  }

  /** One record as a vector. */
  vector(values: FeatureRecord<N>): Float32Array {
    const out = new Float32Array(this.size);
    this.write(out, 0, values);
    return out;
  }
}

/** The values of one feature vector, by name. */
export type FeatureRecord<N extends string> = Readonly<Record<N, number>>;

/** The names of a layout. */
export type FeatureName<L> = L extends FeatureLayout<infer N> ? N : never;

/** A 0/1 feature value. */
export const bit = (b: unknown): number => (b ? 1 : 0);

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
  private readonly copy: (out: Float32Array, base: number, values: FeatureRecord<N>) => void;

  constructor(names: readonly N[]) {
    this.names = names;
    this.size = names.length;
    const cols = new Map<string, number>();
    names.forEach((n, i) => {
      if (cols.has(n)) throw new Error(`feature layout names "${n}" twice`);
      cols.set(n, i);
    });
    this.cols = cols;
    // One straight-line copy per layout: reading `values["name"]` with literal names keeps property
    // access monomorphic, where a loop over `values[names[i]]` costs a generic lookup per feature
    // (millions per training run: candidates x pair features x states).
    const body = names
      .map((n, i) => {
        const key = JSON.stringify(n);
        return `x = v[${key}]; if (typeof x !== 'number') missing(${key}, x); out[base + ${i}] = x;`;
      })
      .join('\n');
    const missing = (name: string, got: unknown) => {
      throw new Error(`feature "${name}" has no value (got ${String(got)})`);
    };
    this.copy = new Function('missing', `return (out, base, v) => { let x;\n${body}\n};`)(missing);
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
    this.copy(out, row * this.size, values);
    let n = 0;
    for (const _ in values) n++;
    if (n !== this.size) {
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

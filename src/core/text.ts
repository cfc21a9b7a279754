/** Small text helpers shared by every module that renders HTML or derives ids from names. */

/** Escapes text for HTML (and SVG/XML) element content and quoted attribute values. */
export function esc(s: unknown): string {
  return String(s ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A lowercase id from a name: every run of non-alphanumerics is one `-`, none at either end. */
export function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** `x.toFixed(digits)`, with a value that rounds to zero printed as zero, never `-0.0000`. */
export function fixed(x: number, digits: number): string {
  const s = x.toFixed(digits);
  return Number(s) === 0 ? (0).toFixed(digits) : s;
}

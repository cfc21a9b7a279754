import { normalizePhone } from '../people.ts';
import { type FieldDef, fieldApplies } from './services.ts';

export { normalizePhone };

/** Field validation of the application wizards, with the messages a government site shows. */

/** "4/2/1985" or "04/02/1985" -> "04/02/1985"; null when not a real calendar date. */
export function normalizeDate(v: string): string | null {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v.trim());
  if (!m) return null;
  const [mo, d, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) return null;
  return `${String(mo).padStart(2, '0')}/${String(d).padStart(2, '0')}/${y}`;
}

/** "$1,850.00" -> "1850"; "12,500.50" -> "12500.5"; null when not an amount. */
export function normalizeMoney(v: string): string | null {
  const s = v.trim().replace(/^\$/, '').replace(/,/g, '');
  if (!/^\d+(\.\d{1,2})?$/.test(s)) return null;
  return String(Number(s));
}

/**
 * Validates one field. Returns the normalized value to store, or an error message. Dates are
 * checked against the calendar, not just the pattern; dates of birth must be in the past.
 */
export function validateField(f: FieldDef, raw: string): { value: string } | { error: string } {
  const v = raw.trim();
  if (f.kind === 'checkbox') return { value: v ? 'Yes' : 'No' };
  if (!v)
    return f.required
      ? { error: f.kind === 'radio' || f.kind === 'select' ? 'Choose an option.' : 'This field is required.' }
      : { value: '' };
  switch (f.kind) {
    case 'date': {
      const d = normalizeDate(v);
      if (!d) return { error: 'Enter a real date as MM/DD/YYYY.' };
      if (f.name === 'dob' && d.slice(6) > '2026') return { error: 'Date of birth must be in the past.' };
      return { value: d };
    }
    case 'datepicker':
      return /^\d{4}-\d{2}-\d{2}$/.test(v) ? { value: v } : { error: 'Choose a date from the calendar.' };
    case 'zip':
      return /^\d{5}(-\d{4})?$/.test(v) ? { value: v.slice(0, 5) } : { error: 'Enter a 5-digit ZIP code.' };
    case 'phone': {
      const p = normalizePhone(v);
      return p ? { value: p } : { error: 'Enter a 10-digit phone number.' };
    }
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i.test(v)
        ? { value: v.toLowerCase() }
        : { error: 'Enter an email address like name@example.com.' };
    case 'int': {
      if (!/^\d+$/.test(v)) return { error: 'Enter a whole number.' };
      const n = Number(v);
      if ((f.min !== undefined && n < f.min) || (f.max !== undefined && n > f.max))
        return { error: `Enter a number from ${f.min} to ${f.max}.` };
      return { value: String(n) };
    }
    case 'money': {
      const m = normalizeMoney(v);
      return m ? { value: m } : { error: 'Enter an amount in dollars, like 1,850.' };
    }
    case 'pattern':
      return f.pattern?.test(v)
        ? { value: v.toUpperCase() }
        : { error: f.patternError ?? 'Check the format.' };
    case 'select':
    case 'radio':
      return f.options?.includes(v) ? { value: v } : { error: 'Choose an option.' };
    default:
      return { value: v.replace(/\s+/g, ' ') };
  }
}

/** Validates the applicable fields of a step; returns normalized values and errors by field. */
export function validateStep(
  fields: FieldDef[],
  input: Record<string, string>,
  answersSoFar: Record<string, string>,
): { values: Record<string, string>; errors: Record<string, string> } {
  const values: Record<string, string> = {};
  const errors: Record<string, string> = {};
  const merged = { ...answersSoFar, ...input };
  for (const f of fields) {
    if (!fieldApplies(f, merged)) continue;
    const r = validateField(f, input[f.name] ?? '');
    if ('error' in r) errors[f.name] = r.error;
    else values[f.name] = r.value;
  }
  return { values, errors };
}

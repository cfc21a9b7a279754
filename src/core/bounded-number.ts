import { z } from 'zod';

/**
 * Numbers read from text (command-line flags, and the option tables of modules that the CLI parses
 * with the same schema), bounded with messages that name the bound: `--seeds 0` says "must be at
 * least 1". The CLI's option parser adds the option's name.
 */

/**
 * A number from text. The schema-level message covers only a value that is not a number (zod
 * would otherwise use it for the range checks too, and `--seeds 0` would say "expected a number");
 * an empty string is not a number either, though `Number('')` is 0.
 */
function coercedNumber() {
  return z.preprocess(
    (v) => (typeof v === 'string' && !v.trim() ? Number.NaN : v),
    z.coerce.number({
      error: (iss) => {
        if (iss.code !== 'invalid_type') return undefined;
        return Number.isNaN(Number(iss.input)) ? 'expected a number' : 'expected a finite number';
      },
    }),
  );
}

/** An integer in [min, max], coerced from text; `.optional()` / `.default(n)` keep an absent value absent. */
export function boundedInt(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  return coercedNumber().pipe(
    z
      .number({ error: 'expected an integer' })
      .int('expected an integer')
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`),
  );
}

/** A finite number in [min, max], coerced from text. */
export function boundedNumber(min = -Number.MAX_VALUE, max = Number.MAX_VALUE) {
  return coercedNumber().pipe(
    z
      .number({ error: 'expected a finite number' })
      .finite('expected a finite number')
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`),
  );
}

/** A finite number greater than 0 and at most `max` (learning rates, sizes), coerced from text. */
export function positiveNumber(max = Number.MAX_VALUE) {
  return coercedNumber().pipe(
    z
      .number({ error: 'expected a finite number' })
      .finite('expected a finite number')
      .positive('must be greater than 0')
      .max(max, `must be at most ${max}`),
  );
}

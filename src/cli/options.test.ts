import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InputError } from '../core/errors.ts';
import { RlCommonOptions } from '../rl/run-rl.ts';
import { fileOption, intOption, numberOption, seedOption } from './options.ts';
import { parseOptions } from './parse-options.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The message `parseOptions` gives for one option's raw value. */
function refusal(schema: z.ZodType, flag: string, value: unknown): string {
  const key = flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  try {
    parseOptions(z.object({ [key]: schema }), { [key]: value }, 'cmd');
  } catch (e) {
    expect(InputError.isInstance(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error(`${flag} ${String(value)} was accepted`);
}

describe('integer options', () => {
  it('say which bound an out-of-range value breaks, naming the option', () => {
    expect(refusal(intOption(1, 100), '--seeds', '0')).toMatch(/option --seeds: must be at least 1$/);
    expect(refusal(intOption(0, 65535), '--port', '70000')).toMatch(/option --port: must be at most 65535$/);
    expect(refusal(intOption(256, 131072), '--ctx', '100')).toMatch(/option --ctx: must be at least 256$/);
    expect(refusal(intOption(1, 32), '--workers', '0')).toMatch(/option --workers: must be at least 1$/);
    expect(refusal(seedOption, '--seed', '-1')).toMatch(/option --seed: must be at least 0$/);
    // The RL module's own option table (what `rmsweb rl` parses) bounds its numbers the same way.
    expect(refusal(RlCommonOptions.shape.groupSize, '--group-size', '0')).toMatch(
      /option --group-size: must be at least 2$/,
    );
    expect(refusal(numberOption(0, 1), '--min-comparability', '2')).toMatch(
      /option --min-comparability: must be at most 1$/,
    );
  });

  it('keep "expected a number" for what is not a number, and say when a number is not an integer', () => {
    expect(refusal(intOption(1, 100), '--seeds', 'abc')).toMatch(/option --seeds: expected a number$/);
    expect(refusal(intOption(1, 100), '--seeds', '')).toMatch(/option --seeds: expected a number$/);
    expect(refusal(intOption(1, 100), '--seeds', '1.5')).toMatch(/option --seeds: expected an integer$/);
    expect(refusal(numberOption(0, 1), '--lr', 'Infinity')).toMatch(/option --lr: expected a finite number$/);
  });

  it('accept values in range and keep absent options absent or defaulted', () => {
    const s = z.object({
      a: intOption(1, 10).optional(),
      b: intOption(1, 10).default(3),
      c: intOption(1, 10),
    });
    expect(s.parse({ c: '10' })).toEqual({ b: 3, c: 10 });
    expect(s.parse({ a: '1', b: '2', c: '5' })).toEqual({ a: 1, b: 2, c: 5 });
  });
});

describe('file options', () => {
  it('refuse a directory given as a file, naming the option', () => {
    expect(refusal(fileOption(), '--critical', dir)).toMatch(
      new RegExp(`option --critical: ${dir} is a directory, expected a file$`),
    );
    expect(refusal(z.array(fileOption()), '--critical', [dir])).toMatch(/is a directory, expected a file$/);
  });

  it('accept a file, or a path that does not exist yet (its reader or writer names that)', () => {
    const file = join(dir, 'x.jsonl');
    writeFileSync(file, '');
    expect(fileOption().parse(file)).toBe(file);
    expect(fileOption().parse(join(dir, 'later.jsonl'))).toBe(join(dir, 'later.jsonl'));
  });
});

describe('the CLI', () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [join(import.meta.dirname, '../../bin/rmsweb.js'), ...args], {
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('exits 2 naming the option for a directory given as a file, with no stack trace', () => {
    const out = join(dir, 'export.jsonl');
    const r = cli('export', 'critical', '--run', dir, '--critical', dir, '--format', 'whowhen', '--out', out);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`option --critical: ${dir} is a directory, expected a file`);
    expect(r.stderr).not.toMatch(/EISDIR|\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });

  it('exits 2 naming the option and the bound for an out-of-range integer', () => {
    const r = cli('serve-model', '--gguf', join(dir, 'm.gguf'), '--ctx', '100');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('option --ctx: must be at least 256');
  });
});

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainerEnv, trainerPython } from '../../models/trainer-python.ts';

const python = trainerPython();
const hasPython = Boolean(process.env.RMSWEB_PYTHON) || existsSync(python);

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [join(import.meta.dirname, '../../../bin/rmsweb.js'), ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });

// CI has the trainer venv: there the test runs, never skips.
describe.skipIf(!hasPython && !process.env.CI)('rmsweb export gguf', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-export-gguf-'));
    // a tiny Gemma 3 GGUF and a random-LoRA checkpoint saved from it as a --lora run saves one
    const r = spawnSync(python, ['-m', 'rmsweb_trainer.gguf_tiny', dir], {
      env: trainerEnv(),
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (r.status !== 0) throw new Error(`the Python fixture failed (${r.status}): ${r.stderr.slice(-800)}`);
  }, 150_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes DIR/adapter.gguf over the base the run recorded, and says how to serve it', () => {
    const r = cli('export', 'gguf', '--model', join(dir, 'ckpt'));
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'ckpt', 'adapter.gguf'))).toBe(true);
    expect(r.stdout).toContain('14 LoRA weights (rank 4, alpha 8) for gemma3');
    expect(r.stdout).toContain(
      `serve-model --gguf ${join(dir, 'base.gguf')} --lora ${join(dir, 'ckpt', 'adapter.gguf')}`,
    );
    const j = cli('export', 'gguf', '--model', join(dir, 'ckpt'), '--out', join(dir, 'b.gguf'), '--json');
    expect(JSON.parse(j.stdout)).toMatchObject({
      out: join(dir, 'b.gguf'),
      architecture: 'gemma3',
      weights: 14,
    });
  }, 60_000);

  it('--dequantize-base writes the base dequantized and serves the adapter over it', () => {
    const out = join(dir, 'b32.gguf');
    const r = cli(
      'export',
      'gguf',
      '--model',
      join(dir, 'ckpt'),
      '--dequantize-base',
      'f32',
      '--base-out',
      out,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
    expect(r.stdout).toContain(`dequantized to f32`);
    expect(r.stdout).toContain(`serve-model --gguf ${out} --lora ${join(dir, 'ckpt', 'adapter.gguf')}`);
    const bad = cli('export', 'gguf', '--model', join(dir, 'ckpt'), '--base-out', out);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--base-out applies to --dequantize-base');
  }, 60_000);

  it('serves a run started from a LoRA checkpoint as both adapters over the first base', () => {
    const r = cli('export', 'gguf', '--model', join(dir, 'ckpt2'));
    expect(r.status, r.stderr).toBe(0);
    const [a, b] = [join(dir, 'ckpt', 'adapter.gguf'), join(dir, 'ckpt2', 'adapter.gguf')];
    expect(r.stdout).toContain(`serve-model --gguf ${join(dir, 'base.gguf')} --lora ${a} --lora ${b}`);
  }, 60_000);

  it('refuses a missing folder and a merged (non-LoRA) checkpoint, naming --model', () => {
    const missing = cli('export', 'gguf', '--model', join(dir, 'none'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('--model');
    const merged = join(dir, 'merged');
    mkdirSync(merged);
    writeFileSync(join(merged, 'rmsweb-trainer.json'), '{"command": "sft", "model": "x"}');
    const r = cli('export', 'gguf', '--model', merged);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/field --model: .*not trained with --lora/);
  }, 60_000);
});

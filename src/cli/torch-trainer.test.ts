import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { InputError } from '../core/index.ts';
import { checkModelPath, parseTrainerError, trainerPython } from '../models/trainer-python.ts';
import { launchArgs, runTorchTrainer } from './torch-trainer.ts';

/**
 * `--backend torch` before and around the Python trainer: `--model` checked and reported as
 * `--model` (a garbage config.json, a missing folder, a folder without config.json, a non-GGUF
 * file), a refused run leaving no `--out` folder, `--accelerate-config` and `--vllm` refused with
 * exit 2 before anything is launched, and `--help` saying which TRL config field each flag sets.
 */

let dir: string;
const python = trainerPython();
const hasPython = Boolean(process.env.RMSWEB_PYTHON) || existsSync(python);
const mustRun = Boolean(process.env.CI);

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [join(import.meta.dirname, '../../bin/rmsweb.js'), ...args], {
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, RMSWEB_HEAP_MB: '0' },
  });

/** Exit 2 with one `rmsweb: ...` line, no stack trace or Python traceback. */
function refused(r: ReturnType<typeof cli>): string {
  expect(r.status, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/Traceback|\n\s+at /);
  return lines[0] ?? '';
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-torch-cli-'));
  mkdirSync(join(dir, 'garbage'));
  writeFileSync(join(dir, 'garbage', 'config.json'), 'garbage{\n}\n');
  mkdirSync(join(dir, 'empty'));
  mkdirSync(join(dir, 'llama'));
  writeFileSync(join(dir, 'llama', 'config.json'), '{"model_type": "llama"}');
  writeFileSync(join(dir, 'model.gguf'), 'not a gguf file');
  writeFileSync(join(dir, 'real.gguf'), Buffer.from('GGUF\x03\x00\x00\x00', 'latin1'));
  writeFileSync(
    join(dir, 'sft.jsonl'),
    `${JSON.stringify({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'yo' },
      ],
    })}\n`,
  );
  writeFileSync(
    join(dir, 'no-reply.jsonl'),
    `${JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })}\n`,
  );
  writeFileSync(join(dir, 'bad.yaml'), 'distributed_type: [FSDP\n');
  writeFileSync(join(dir, 'fsdp.yaml'), 'distributed_type: FSDP\nnum_processes: 8\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checkModelPath', () => {
  const fails = (path: string) => {
    try {
      checkModelPath(path);
    } catch (e) {
      expect(InputError.isInstance(e)).toBe(true);
      expect((e as InputError).field).toBe('--model');
      return (e as Error).message;
    }
    throw new Error(`${path} passed`);
  };

  it('names the file and says why for each kind of bad --model', () => {
    expect(fails(join(dir, 'garbage'))).toMatch(
      new RegExp(`^${join(dir, 'garbage', 'config.json')}, field --model: not valid JSON`),
    );
    // One line, even when the parser's message quotes a line break of the file.
    expect(fails(join(dir, 'garbage'))).not.toContain('\n');
    expect(fails(join(dir, 'missing'))).toContain('no such file or folder');
    expect(fails(join(dir, 'empty'))).toContain('no config.json');
    expect(fails(join(dir, 'model.gguf'))).toContain('not a GGUF file');
    expect(fails(join(dir, 'sft.jsonl'))).toContain('not a GGUF file');
  });

  it('accepts a Hugging Face folder and a GGUF file', () => {
    expect(() => checkModelPath(join(dir, 'llama'))).not.toThrow();
    expect(() => checkModelPath(join(dir, 'real.gguf'))).not.toThrow();
  });
});

describe('the trainer error line and launch', () => {
  it('reads the option back from the trainer error line', () => {
    expect(parseTrainerError('warn\nerror: --model: /m/config.json: not valid JSON\n')).toEqual({
      field: '--model',
      message: '/m/config.json: not valid JSON',
    });
    expect(parseTrainerError('error: /d/x.jsonl:3: field messages has no assistant reply')).toEqual({
      message: '/d/x.jsonl:3: field messages has no assistant reply',
    });
  });

  it('launches under accelerate with the config file, under torchrun, or plainly', () => {
    expect(launchArgs(['sft', '--out', 'o'], { accelerateConfig: '/c/zero3.yaml', nproc: 8 })).toEqual([
      '-m',
      'accelerate.commands.launch',
      '--config_file',
      '/c/zero3.yaml',
      '--num_processes',
      '8',
      '-m',
      'rmsweb_trainer',
      'sft',
      '--out',
      'o',
    ]);
    expect(launchArgs(['rl'], { nproc: 2 }).slice(0, 4)).toEqual([
      '-m',
      'torch.distributed.run',
      '--standalone',
      '--nproc-per-node=2',
    ]);
    expect(launchArgs(['rl'], {})).toEqual(['-m', 'rmsweb_trainer', 'rl']);
  });
});

describe('rmsweb train sft / rl --backend torch refusals', () => {
  it('reports a garbage config.json, a missing folder and a non-GGUF file as --model, in one line, with no --out', () => {
    for (const [model, why] of [
      [join(dir, 'garbage'), `${join(dir, 'garbage', 'config.json')}, field --model: not valid JSON`],
      [join(dir, 'missing'), 'field --model: no such file or folder'],
      [join(dir, 'empty'), 'field --model: not a Hugging Face model folder'],
      [join(dir, 'model.gguf'), 'field --model: not a GGUF file'],
    ] as const) {
      const out = join(dir, 'out-sft');
      const sft = refused(
        cli(
          'train',
          'sft',
          '--backend',
          'torch',
          '--model',
          model,
          '--data',
          join(dir, 'sft.jsonl'),
          '--out',
          out,
        ),
      );
      expect(sft).toContain(why);
      expect(existsSync(out)).toBe(false);
      const rl = refused(
        cli('rl', '--backend', 'torch', '--model', model, '--data', join(dir, 'sft.jsonl'), '--out', out),
      );
      expect(rl).toContain(why);
      expect(existsSync(out)).toBe(false);
    }
  }, 180_000);

  it('prints which TRL config field each flag sets', () => {
    const rl = cli('rl', '--help');
    expect(rl.stdout).toContain('GRPOConfig.max_steps');
    for (const f of [
      'num_generations',
      'max_completion_length',
      'vllm_mode',
      'accelerate launch --config_file',
    ])
      expect(rl.stdout).toContain(f);
    const sft = cli('train', 'sft', '--help');
    for (const f of [
      'SFTConfig.num_train_epochs',
      'completion_only_loss',
      'per_device_train_batch_size',
      'LoraConfig',
    ])
      expect(sft.stdout).toContain(f);
    // the resumable checkpoints of both, and where they live
    for (const help of [rl.stdout, sft.stdout]) {
      expect(help).toMatch(/--save-steps N +save_strategy "steps"/);
      expect(help).toMatch(/--gradient-checkpointing/);
    }
  });

  it('refuses --save-steps, --gradient-checkpointing and --lora-layers for the tfjs student, naming the flag', () => {
    const out = join(dir, 'tfjs-save-steps');
    for (const flag of [['--save-steps', '2'], ['--gradient-checkpointing']]) {
      const rl = refused(cli('rl', '--data', join(dir, 'none.jsonl'), '--out', out, ...flag));
      expect(rl).toContain(`${flag[0]} applies to --backend torch only`);
      const sft = refused(cli('train', 'sft', '--run', dir, '--out', out, ...flag));
      expect(sft).toContain(`${flag[0]} applies to --backend torch only`);
    }
    // --lora-layers: torch only, and LoRA only (full fine-tuning trains every layer)
    const rl = ['rl', '--data', join(dir, 'sft.jsonl'), '--out', out, '--lora-layers', '2'];
    expect(refused(cli(...rl))).toContain('--lora-layers applies to --backend torch only');
    expect(refused(cli(...rl, '--backend', 'torch', '--model', join(dir, 'llama')))).toContain(
      'field --lora-layers: --lora-layers applies to --lora runs',
    );
    expect(refused(cli('train', 'sft', '--run', dir, '--out', out, '--lora-layers', '2'))).toContain(
      '--lora-layers applies to --backend torch --lora only',
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe.skipIf(!hasPython && !mustRun)('refusals that need the trainer venv', () => {
  it('removes the --out folder it created when the trainer refuses the data', () => {
    const out = join(dir, 'out-refused');
    const line = refused(
      cli(
        'train',
        'sft',
        '--backend',
        'torch',
        '--model',
        join(dir, 'llama'),
        '--data',
        join(dir, 'no-reply.jsonl'),
        '--out',
        out,
      ),
    );
    expect(line).toContain('no-reply.jsonl:1: field messages has no assistant reply');
    expect(existsSync(out)).toBe(false);
  }, 180_000);

  it('refuses a missing or unparsable --accelerate-config, and --vllm without CUDA, before creating --out', () => {
    const out = join(dir, 'out-launch');
    const base = [
      'train',
      'sft',
      '--backend',
      'torch',
      '--model',
      join(dir, 'llama'),
      '--data',
      join(dir, 'sft.jsonl'),
    ];
    expect(refused(cli(...base, '--out', out, '--accelerate-config', join(dir, 'none.yaml')))).toContain(
      'field --accelerate-config: no such file',
    );
    expect(refused(cli(...base, '--out', out, '--accelerate-config', join(dir, 'bad.yaml')))).toContain(
      'field --accelerate-config: ',
    );
    expect(existsSync(out)).toBe(false);
    const cuda = spawnSync(python, ['-c', 'import torch; print(torch.cuda.is_available())'], {
      encoding: 'utf8',
    });
    if (cuda.stdout.trim() === 'False') {
      const rl = [
        'rl',
        '--backend',
        'torch',
        '--model',
        join(dir, 'llama'),
        '--data',
        join(dir, 'sft.jsonl'),
      ];
      expect(refused(cli(...rl, '--out', out, '--vllm', 'colocate'))).toMatch(
        /field --vllm: vLLM generation needs a CUDA GPU/,
      );
      expect(existsSync(out)).toBe(false);
    }
  }, 300_000);
});

describe('runTorchTrainer and an interrupted pipeline', () => {
  /** A stand-in trainer (RMSWEB_PYTHON): writes one step event to --metrics, then trains "forever". */
  beforeEach(() => {
    const file = join(dir, 'fake-python.sh');
    writeFileSync(
      file,
      '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = --metrics ] && m="$2"; shift; done\n' +
        'echo \'{"event": "step", "step": 1}\' >> "$m"\nexec sleep 120\n',
    );
    chmodSync(file, 0o755);
    vi.stubEnv('RMSWEB_PYTHON', file);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('stops the trainer when the signal aborts and resolves with the events so far', async () => {
    const ctrl = new AbortController();
    const t0 = Date.now();
    const events = await runTorchTrainer({
      args: ['rl'],
      metricsFile: join(dir, 'fake-metrics.jsonl'),
      signal: ctrl.signal,
      onEvent: (e) => {
        if (e.event === 'step') ctrl.abort();
      },
    });
    // The trainer would have run 120 s; the pipeline's Ctrl-C must not wait for it.
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(events).toEqual([{ event: 'step', step: 1 }]);
  }, 60_000);

  it('an already aborted signal launches nothing', async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    const metricsFile = join(dir, 'fake-metrics-2.jsonl');
    await expect(runTorchTrainer({ args: ['sft'], metricsFile, signal: ctrl.signal })).resolves.toEqual([]);
    // The stand-in writes its metrics file as soon as it starts: none means it never started.
    expect(existsSync(metricsFile)).toBe(false);
  }, 60_000);
});

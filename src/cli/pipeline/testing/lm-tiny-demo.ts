import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { trainerEnv, trainerPython } from '../../../models/trainer-python.ts';

/**
 * A tiny random Llama in `dir/tiny` whose byte-level tokenizer is trained on lm-layout text (no
 * download): the model of the lm-tiny preset's tests. Throws with the trainer's stderr on failure.
 */
export function makeTinyLm(dir: string): string {
  const rows = [
    '{"click":{"index":12}}',
    '{"input":{"index":3,"text":"pasta"}}',
    '{"done":{"text":"42"}}',
  ].map((a, i) =>
    JSON.stringify({
      messages: [
        {
          role: 'user',
          content: `Task: find recipe ${i}\nURL: http://127.0.0.1/mail\nElements:\n[${i}] <button> Compose\nAction: `,
        },
        { role: 'assistant', content: a },
      ],
    }),
  );
  writeFileSync(join(dir, 'tok.jsonl'), `${rows.join('\n')}\n`);
  const model = join(dir, 'tiny');
  const r = spawnSync(
    trainerPython(),
    ['-m', 'rmsweb_trainer', 'tiny', '--out', model, '--data', join(dir, 'tok.jsonl')],
    { encoding: 'utf8', env: trainerEnv() },
  );
  if (r.status !== 0) throw new Error(`rmsweb_trainer tiny failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return model;
}

/** `rmsweb demo --preset lm-tiny --model MODEL --out OUT ...extra`, run to its end. */
export function lmTinyDemo(model: string, out: string, ...extra: string[]) {
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    ['bin/rmsweb.js', 'demo', '--preset', 'lm-tiny', '--model', model, '--out', out, ...extra],
    { encoding: 'utf8', timeout: 560_000, env: { ...process.env, FORCE_COLOR: '0' } },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, seconds: (performance.now() - t0) / 1000 };
}

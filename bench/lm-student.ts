/**
 * Cost of the LM student (issue 38 item 5), read from a finished (or partly finished) lm demo run
 * folder, plus one cheap live measurement:
 *   - the wall time of every stage, as each stage's record holds it;
 *   - SFT: rows/s and trained tokens/s (the lm-sft stages' records, from the trainer's step events);
 *   - RL sampling: rollouts/s and completion tokens/s of Salvage-DS (the lm-rl stages' records);
 *   - evaluation: agent steps/s and seconds per step of each evaluation, end to end (browser included);
 *   - llama.cpp inference of the student (live, `--live N`): prompt-evaluation and generation
 *     tokens/s on N of the run's own lm prompts, greedy, stopped at the line break as the lm agent
 *     is; on the base GGUF, or `--gguf FILE` (a merged student) with `--lora FILE` when
 *     serve-model's adapters are there.
 *
 *   npx tsx bench/lm-student.ts runs/demo-lm
 *   nice -n 10 npx tsx bench/lm-student.ts runs/demo-lm --live 20 [--gguf FILE] [--threads 2]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { STAGE_RECORD } from '../src/cli/pipeline/stage.ts';
import { LlamaBackend } from '../src/cli/serve-model/llama-backend.ts';
import { localModelPath } from '../src/cli/serve-model/testing/local-model.ts';
import { RunStore } from '../src/store/run-store.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    live: { type: 'string' },
    gguf: { type: 'string' },
    lora: { type: 'string' },
    threads: { type: 'string', default: '1' },
  },
});
const dir = resolve(positionals[0] ?? 'runs/demo-lm');
if (!existsSync(join(dir, 'store.sqlite'))) {
  console.error(`bench:lm-student: ${dir} is not a demo run folder (no store.sqlite)`);
  process.exit(2);
}

interface StageRecord {
  stage: string;
  seconds: number;
  result: Record<string, unknown>;
}

const store = RunStore.open(dir, { create: false, readonly: true });
const records = store
  .listRecords<StageRecord>(STAGE_RECORD)
  .map((r) => r.value)
  .filter((r): r is StageRecord => typeof r?.seconds === 'number');
const f = (x: unknown, d = 1) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : 'n/a');

console.log(`${dir}: ${records.length} finished stages`);
console.log('\nstage wall time (s)');
let sum = 0;
for (const r of records) {
  sum += r.seconds;
  console.log(`  ${r.stage.padEnd(28)} ${r.seconds.toFixed(0).padStart(7)}`);
}
console.log(`  ${'sum'.padEnd(28)} ${sum.toFixed(0).padStart(7)}  (${(sum / 3600).toFixed(2)} h)`);

console.log('\nSFT (torch)');
for (const r of records.filter((x) => x.stage.startsWith('lm-sft') || x.stage.startsWith('lm-dagger-sft'))) {
  const s = r.result;
  console.log(
    `  ${r.stage}: ${s.mode}, ${s.rows} rows x ${s.epochs} epoch(s) in ${f(s.trainSeconds, 0)} s: ${f(s.rowsPerSecond, 3)} rows/s, ${f(s.tokensPerSecond, 0)} trained tokens/s`,
  );
}
const choice = records.find((x) => x.stage === 'lm-choose-finetune')?.result as
  | { trials?: Array<{ mode: string; trainSeconds: number; scoreSeconds: number }>; trainRows?: number }
  | undefined;
for (const t of choice?.trials ?? [])
  console.log(
    `  choice ${t.mode}: ${choice?.trainRows} rows in ${f(t.trainSeconds, 0)} s (${f((choice?.trainRows ?? 0) / t.trainSeconds, 3)} rows/s incl. load), scored in ${f(t.scoreSeconds, 0)} s`,
  );

console.log('\nRL sampling (Salvage-DS, torch)');
for (const r of records.filter((x) => x.stage.startsWith('lm-rl-'))) {
  const s = r.result;
  console.log(
    `  ${r.stage}: ${s.steps} steps, ${s.rolloutsSampled} rollouts in ${f(s.wallSeconds, 0)} s: ${f(Number(s.rolloutsSampled) / Number(s.wallSeconds), 3)} rollouts/s, ${f(s.completionTokensPerSecond)} completion tokens/s`,
  );
}

console.log('\nevaluation and rollouts (end to end: model, browser, verifier)');
const usage = (tag: string) => {
  let steps = 0;
  let prompt = 0;
  let completion = 0;
  let modelMs = 0;
  for (const t of store.listTrajectories({ tag }))
    for (const s of t.steps) {
      steps++;
      modelMs += s.timing.modelMs;
      prompt += s.usage?.promptTokens ?? 0;
      completion += s.usage?.completionTokens ?? 0;
    }
  return { steps, prompt, completion, modelMs };
};
for (const r of records.filter((x) => x.stage.startsWith('eval-lm'))) {
  const u = usage(`eval:${r.stage.slice('eval-'.length)}`);
  console.log(
    `  ${r.stage}: ${u.steps} steps in ${r.seconds.toFixed(0)} s: ${f(r.seconds / Math.max(1, u.steps), 2)} s/step, of which the model ${f(u.modelMs / 1000 / Math.max(1, u.steps), 2)} s` +
      (u.prompt && u.modelMs
        ? `; ${f(u.prompt / (u.modelMs / 1000), 0)} prompt tokens and ${f(u.completion / (u.modelMs / 1000))} generated tokens per model-second`
        : ''),
  );
}
store.close();
for (const rollout of records.filter(
  (x) => x.stage === 'lm-rollout' || x.stage.startsWith('lm-dagger-rollout'),
))
  console.log(
    `  ${rollout.stage}: ${rollout.result.steps} steps in ${rollout.seconds.toFixed(0)} s: ${f(rollout.seconds / Math.max(1, Number(rollout.result.steps)), 2)} s/step`,
  );

if (values.live) {
  const n = Number(values.live);
  const file = join(dir, 'exports', 'lm', 'train.jsonl');
  if (!existsSync(file)) {
    console.error(`bench:lm-student: --live needs the run's lm export (${file})`);
    process.exit(2);
  }
  const prompts = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, n)
    .map((l) => (JSON.parse(l) as { prompt: string }).prompt);
  const gguf = values.gguf ? resolve(values.gguf) : localModelPath();
  if (values.lora) console.error('bench:lm-student: --lora needs serve-model adapters; measuring without it');
  const t0 = performance.now();
  const backend = await LlamaBackend.open({ gguf, threads: Number(values.threads) });
  console.log(
    `\nllama.cpp (${backend.modelId}, ${values.threads} thread(s)): loaded in ${f((performance.now() - t0) / 1000)} s`,
  );
  let promptTokens = 0;
  let promptMs = 0;
  let genTokens = 0;
  let genMs = 0;
  for (const prompt of prompts) {
    const r = await backend.complete({
      prompt,
      n: 1,
      temperature: 0,
      maxTokens: 48,
      stop: ['\n'],
      logprobs: false,
      topLogprobs: 0,
    });
    promptTokens += r.promptTokens - r.cachedPromptTokens;
    promptMs += r.promptMs;
    genTokens += r.choices.reduce((a, c) => a + c.completionTokens, 0);
    genMs += r.generationMs;
  }
  await backend.close();
  console.log(
    `  ${prompts.length} lm prompts: prompt evaluation ${f(promptTokens / (promptMs / 1000), 0)} tokens/s (${promptTokens} tokens), generation ${f(genTokens / (genMs / 1000))} tokens/s (${genTokens} tokens); ${f((promptMs + genMs) / 1000 / Math.max(1, prompts.length), 2)} s per step`,
  );
}

/**
 * Does the llama.cpp student act as the torch student does? On the first N prompts of an lm export
 * (`rmsweb export sft --format lm` rows, held out from training), the greedy reply of:
 *
 *   torch     the trained checkpoint (merged weights), through the trainer's Python serve process:
 *             exactly what `--agent lm:hf:DIR` runs (HfCompletionModel);
 *   llama.cpp the base GGUF + the LoRA adapter GGUF `rmsweb export gguf` wrote, through the backend
 *             `rmsweb serve-model --gguf BASE --lora FILE` runs (its /v1/completions, in process);
 *
 * each read as LmAgent reads it (stop at a line break, parseLmAction). Prints the share of prompts
 * where both give the same action (a reply with no valid action counts as the action "unusable"),
 * the share of identical reply texts, each side's parse rate and tokens per second, and the first
 * disagreements. The target: the same action on at least 95% of 200 held-out prompts.
 *
 *   npx tsx bench/lm-agreement.ts --torch DIR --gguf BASE.gguf [--lora DIR/adapter.gguf]
 *       --data FILE.jsonl [--exclude TRAINED.jsonl] [--n 200] [--max-tokens 64] [--threads 1]
 *       [--ctx 2048] [--json OUT]
 *
 * --exclude skips the rows whose prompt is in that file (the rows the student trained on: an lm demo
 * folder's lm/sft-data.jsonl), so the first N of the rest are held-out prompts.
 *
 * --lora defaults to DIR/adapter.gguf when it is there; without an adapter the llama.cpp side is the
 * base GGUF alone (for a fully fine-tuned student exported whole as --gguf).
 */

import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lmActionText } from '../src/agent/lm-prompt.ts';
import { LlamaBackend } from '../src/cli/serve-model/llama-backend.ts';
import { HfCompletionModel } from '../src/models/hf-completion-model.ts';
import { readLmRows, replyAction } from './lm-rows.ts';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const USAGE =
  'usage: npx tsx bench/lm-agreement.ts --torch DIR --gguf BASE.gguf [--lora FILE.gguf] --data FILE.jsonl ' +
  '[--exclude TRAINED.jsonl] [--n 200] [--max-tokens 64] [--threads 1] [--ctx 2048] [--json OUT]';
const torchDir = arg('torch');
const gguf = arg('gguf');
const data = arg('data');
if (!torchDir || !gguf || !data) {
  console.error(USAGE);
  process.exit(2);
}
const lora =
  arg('lora') ?? (existsSync(join(torchDir, 'adapter.gguf')) ? join(torchDir, 'adapter.gguf') : undefined);
const n = Number(arg('n') ?? 200);
const maxTokens = Number(arg('max-tokens') ?? 64);
const threads = Number(arg('threads') ?? 1);
const ctx = Number(arg('ctx') ?? 2048);

// Only the prompt is read (the completion is the teacher's).
const excludeFile = arg('exclude');
const trained = new Set(excludeFile ? readLmRows(excludeFile).map((r) => r.prompt) : []);
const all = readLmRows(data);
const held = all.filter((r) => !trained.has(r.prompt));
const rows = held.slice(0, n);
if (excludeFile) console.error(`${all.length - held.length} of ${all.length} rows trained on: skipped`);

/** The action a reply holds, canonical (lmActionText), or "unusable" as LmAgent scores it. */
function actionOf(text: string): string {
  const a = replyAction(text);
  return a ? lmActionText(a) : 'unusable';
}

const STOP = ['\n']; // LmAgent's stop (with EOS)

/** The share of the longer text that both texts start with (1 when they are identical). */
function sharedPrefix(a: string, b: string): number {
  const n = Math.max(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return n ? i / n : 1;
}

const torch = new HfCompletionModel(torchDir, { field: '--torch' });
const llama = await LlamaBackend.open({
  gguf,
  contextSize: ctx,
  threads,
  ...(lora ? { lora: { file: lora } } : {}),
});
console.error(`llama.cpp: ${llama.modelId}; torch: ${torchDir}; ${rows.length} prompts`);

interface Pair {
  id: string;
  torch: string;
  llama: string;
  torchAction: string;
  llamaAction: string;
}
const pairs: Pair[] = [];
const time = { torchMs: 0, llamaMs: 0, torchTokens: 0, llamaTokens: 0 };
try {
  for (const [i, row] of rows.entries()) {
    let t0 = Date.now();
    const t = await torch.complete({ prompt: row.prompt, maxTokens, temperature: 0, stop: STOP });
    time.torchMs += Date.now() - t0;
    time.torchTokens += t.usage.completionTokens;
    t0 = Date.now();
    const l = await llama.complete({
      prompt: row.prompt,
      n: 1,
      temperature: 0,
      maxTokens,
      stop: STOP,
      logprobs: false,
      topLogprobs: 0,
    });
    time.llamaMs += Date.now() - t0;
    const lt = l.choices[0]?.text ?? '';
    time.llamaTokens += l.choices[0]?.completionTokens ?? 0;
    pairs.push({
      id: row.id ?? String(i),
      torch: t.text,
      llama: lt,
      torchAction: actionOf(t.text),
      llamaAction: actionOf(lt),
    });
    if ((i + 1) % 10 === 0) console.error(`  ${i + 1}/${rows.length}`);
  }
} finally {
  torch.close();
  await llama.close();
}

const share = (k: number) => (pairs.length ? k / pairs.length : 0);
const same = pairs.filter((p) => p.torchAction === p.llamaAction);
const report = {
  prompts: pairs.length,
  torch: torchDir,
  gguf,
  lora: lora ?? null,
  sameAction: share(same.length),
  sameActionBothUsable: share(same.filter((p) => p.torchAction !== 'unusable').length),
  sameText: share(pairs.filter((p) => p.torch === p.llama).length),
  torchUsable: share(pairs.filter((p) => p.torchAction !== 'unusable').length),
  llamaUsable: share(pairs.filter((p) => p.llamaAction !== 'unusable').length),
  torchSecondsPerPrompt: pairs.length ? time.torchMs / 1000 / pairs.length : 0,
  llamaSecondsPerPrompt: pairs.length ? time.llamaMs / 1000 / pairs.length : 0,
  /** Where the two texts part, as a share of the longer one (1: identical), averaged over prompts. */
  meanSharedPrefix: pairs.length
    ? pairs.reduce((a, p) => a + sharedPrefix(p.torch, p.llama), 0) / pairs.length
    : 0,
  disagreements: pairs.filter((p) => p.torchAction !== p.llamaAction),
  pairs,
};
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log(
  `same action: ${pct(report.sameAction)} of ${report.prompts} prompts (both usable and equal: ${pct(report.sameActionBothUsable)}; ` +
    `identical text: ${pct(report.sameText)})\n` +
    `usable replies: torch ${pct(report.torchUsable)}, llama.cpp ${pct(report.llamaUsable)}; ` +
    `texts agree on ${pct(report.meanSharedPrefix)} of their length on average\n` +
    `seconds per prompt: torch ${report.torchSecondsPerPrompt.toFixed(2)}, llama.cpp ${report.llamaSecondsPerPrompt.toFixed(2)}`,
);
for (const d of report.disagreements.slice(0, 5))
  console.log(
    `  action differs ${d.id}: torch ${JSON.stringify(d.torch)} | llama.cpp ${JSON.stringify(d.llama)}`,
  );
for (const d of pairs.filter((p) => p.torch !== p.llama && p.torchAction === p.llamaAction).slice(0, 3))
  console.log(
    `  text differs ${d.id}: torch ${JSON.stringify(d.torch)} | llama.cpp ${JSON.stringify(d.llama)}`,
  );
const out = arg('json');
if (out) writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);

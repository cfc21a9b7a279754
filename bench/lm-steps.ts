/**
 * How often does an LM student's greedy action equal the teacher's, one step at a time? On a seeded
 * sample of an lm export's rows (`rmsweb export sft --format lm`: prompt = the student's observation,
 * completion = the teacher's action), the torch student's greedy reply is read as LmAgent reads it
 * (stop at a line break, parseLmAction) and compared with the teacher's action: the same action, the
 * same action type, the same element when the type agrees, and the replies that hold no action.
 *
 * Run it on the rows the student trained on and on the rest to tell underfitting (both low) from
 * poor generalisation (trained high, held-out low):
 *
 *   npx tsx bench/lm-steps.ts --model DIR --data FILE.jsonl [--only TRAINED.jsonl | --exclude TRAINED.jsonl]
 *       [--n 100] [--seed 0] [--threads 2] [--json OUT]
 *
 * For an lm demo folder: --data <run>/exports/lm/train.jsonl, TRAINED = <run>/lm/sft-data.jsonl.
 * A step that this scores wrong may still be a right step (another element that does the same): the
 * score is a lower bound on the student's step accuracy, the same for every student compared.
 */

import { writeFileSync } from 'node:fs';
import { lmActionText, parseLmAction } from '../src/agent/lm-prompt.ts';
import { Rng } from '../src/core/index.ts';
import { HfCompletionModel } from '../src/models/hf-completion-model.ts';
import { readLmRows, replyAction } from './lm-rows.ts';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const USAGE =
  'usage: npx tsx bench/lm-steps.ts --model DIR --data FILE.jsonl [--only TRAINED.jsonl | --exclude TRAINED.jsonl] ' +
  '[--n 100] [--seed 0] [--threads 2] [--json OUT]';
const modelDir = arg('model');
const data = arg('data');
if (!modelDir || !data || (arg('only') && arg('exclude'))) {
  console.error(USAGE);
  process.exit(2);
}
const n = Number(arg('n') ?? 100);
const seed = Number(arg('seed') ?? 0);
const threads = Number(arg('threads') ?? 2);

const all = readLmRows(data, { completion: true });
const only = arg('only');
const exclude = arg('exclude');
const listFile = only ?? exclude;
const listed = new Set(listFile ? readLmRows(listFile).map((r) => r.prompt) : []);
// --only keeps the listed rows, --exclude the others.
const pool = listFile ? all.filter((r) => listed.has(r.prompt) === Boolean(only)) : all;
const rows = new Rng(`lm-steps:${seed}`).shuffle([...pool]).slice(0, n);

const model = new HfCompletionModel(modelDir, { field: '--model', threads });
console.error(`${modelDir}: ${rows.length} of ${pool.length} rows (seed ${seed})`);
const results: Array<{
  id: string;
  teacher: string;
  student: string;
  exact: boolean;
  type: boolean;
  element: boolean | null;
}> = [];
let ms = 0;
try {
  for (const [i, row] of rows.entries()) {
    const t0 = Date.now();
    const r = await model.complete({ prompt: row.prompt, maxTokens: 64, temperature: 0, stop: ['\n'] });
    ms += Date.now() - t0;
    const teacher = parseLmAction(row.completion);
    const student = replyAction(r.text);
    const ti = 'index' in teacher ? teacher.index : undefined;
    const si = student && 'index' in student ? student.index : undefined;
    const type = student?.type === teacher.type;
    const teacherText = lmActionText(teacher);
    const studentText = student ? lmActionText(student) : `unusable: ${JSON.stringify(r.text)}`;
    results.push({
      id: row.id ?? String(i),
      teacher: teacherText,
      student: studentText,
      exact: studentText === teacherText,
      type,
      element: type && ti !== undefined ? si === ti : null,
    });
    if ((i + 1) % 10 === 0) console.error(`  ${i + 1}/${rows.length}`);
  }
} finally {
  model.close();
}

const share = (k: number, of: number) => (of ? k / of : 0);
const withElement = results.filter((r) => r.element !== null);
const report = {
  model: modelDir,
  data,
  subset: only ? `only ${only}` : exclude ? `excluding ${exclude}` : 'all',
  seed,
  steps: results.length,
  exact: share(results.filter((r) => r.exact).length, results.length),
  sameType: share(results.filter((r) => r.type).length, results.length),
  sameElementWhenTypeAgrees: share(withElement.filter((r) => r.element).length, withElement.length),
  unusable: share(results.filter((r) => r.student.startsWith('unusable')).length, results.length),
  secondsPerStep: results.length ? ms / 1000 / results.length : 0,
  results,
};
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log(
  `${report.steps} steps (${report.subset}): same action ${pct(report.exact)}, same type ${pct(report.sameType)}, ` +
    `same element when the type agrees ${pct(report.sameElementWhenTypeAgrees)} (${withElement.length}), ` +
    `no action ${pct(report.unusable)}; ${report.secondsPerStep.toFixed(2)} s a step`,
);
for (const r of results.filter((x) => !x.exact).slice(0, 8))
  console.log(`  ${r.id}: teacher ${r.teacher} | student ${r.student}`);
const out = arg('json');
if (out) writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);

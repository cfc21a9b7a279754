/**
 * Developer probe for the local student (not part of the pipeline): trains on run folders (or loads
 * a checkpoint) and breaks the validation errors down by sub-decision (type, element given the right
 * type, argument given the right type and element), by template, plus coverage (is the target even
 * among the kept elements and candidates?) and a few wrong decisions with the top candidates.
 *
 *   npx tsx scripts/diagnose-student.ts --run DIR [--run DIR] [--model DIR | --epochs E] [--show N]
 */
import * as tf from '@tensorflow/tfjs';
import { formatAction } from '../src/core/action.ts';
import { POLICY_ACTION_TYPES } from '../src/policy/action-space.ts';
import { actionTargets, stateStructure } from '../src/policy/featurizer.ts';
import { loadSuccessfulTrajectories } from '../src/policy/run-data.ts';
import {
  filterRepresentable,
  type SftExample,
  sftExamples,
  splitByTask,
  trainSft,
} from '../src/policy/sft-trainer.ts';
import { type LocalStudentPolicy, loadStudentPolicy } from '../src/policy/student-policy.ts';

const argv = process.argv.slice(2);
const opt = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const runs = argv.flatMap((a, i) => (argv[i - 1] === '--run' ? [a] : []));
const show = Number(opt('--show') ?? 12);
const seed = Number(opt('--seed') ?? 0);
const trajectories = loadSuccessfulTrajectories(runs);
const template = (e: SftExample) => e.taskId.split('.').slice(0, 2).join('.');

// ----- coverage, before any model -----
let policy: LocalStudentPolicy;
const t0 = performance.now();
if (opt('--model')) policy = await loadStudentPolicy(opt('--model')!);
else {
  const res = await trainSft(trajectories, {
    epochs: Number(opt('--epochs') ?? 6),
    lr: opt('--lr') ? Number(opt('--lr')) : undefined,
    seed,
    model: opt('--hidden') ? { hidden: Number(opt('--hidden')) } : undefined,
    onEpoch: (m) =>
      console.log(
        `epoch ${m.epoch} loss ${m.trainLoss.toFixed(3)} train ${(100 * m.trainStepAccuracy).toFixed(1)}% val ${(100 * m.valStepAccuracy).toFixed(1)}% (${m.valEquivalentAccuracy.toFixed(3)} eq) ${m.examplesPerSecond.toFixed(1)} ex/s ${m.seconds.toFixed(0)}s`,
      ),
  });
  policy = res.policy;
}
console.log(`model ready in ${((performance.now() - t0) / 1000).toFixed(0)}s`);

const all = sftExamples(trajectories);
const cfg = policy.featurizer;
const cov = {
  steps: all.length,
  elemNotKept: 0,
  argMissing: 0,
  typeUnavailable: 0,
  candCapped: 0,
  elemCapped: 0,
};
const missingArgs: string[] = [];
for (const ex of all) {
  const st = stateStructure(ex.state, cfg);
  const tg = actionTargets(st, ex.action);
  if (st.candidates.length >= cfg.maxCandidates) cov.candCapped++;
  if (ex.state.observation.elements.length > cfg.maxElements) cov.elemCapped++;
  if (tg.type < 0) cov.typeUnavailable++;
  else if (tg.element < 0 && 'index' in ex.action && ex.action.type !== 'scroll') cov.elemNotKept++;
  else if (!tg.representable) {
    cov.argMissing++;
    if (missingArgs.length < 10) missingArgs.push(`${template(ex)}: ${formatAction(ex.action)}`);
  }
}
console.log('coverage', cov);
for (const m of missingArgs) console.log('   arg missing:', m);

const { kept } = filterRepresentable(all, cfg);
const split = splitByTask(kept, 0.1, seed);
const sets: Array<[string, SftExample[]]> = [
  ['train', split.train],
  ['val', split.val],
];
const typeNames = POLICY_ACTION_TYPES as readonly string[];

for (const [name, exs] of sets) {
  const stats = { n: 0, typeWrong: 0, elemN: 0, elemWrong: 0, argN: 0, argWrong: 0, greedyRight: 0 };
  const byTpl = new Map<string, { n: number; right: number }>();
  const confusion = new Map<string, number>();
  const shown: string[] = [];
  for (let i = 0; i < exs.length; i += 32) {
    const chunk = exs.slice(i, i + 32);
    const batch = policy.encode(chunk.map((e) => e.state));
    const greedy = policy.greedy(batch);
    tf.tidy(() => {
      const f = policy.forward(
        batch,
        chunk.map((e) => e.action),
      );
      const tl = f.typeLogProbs.arraySync();
      const el = f.elementLogProbs.arraySync();
      const al = f.argLogProbs.arraySync();
      chunk.forEach((ex, j) => {
        const st = stateStructure(ex.state, cfg);
        const tt = f.targets.type[j];
        const te = f.targets.element[j];
        const ta = f.targets.argument[j];
        const argmax = (xs: number[]) => xs.reduce((b, x, k) => (x > xs[b] ? k : b), 0);
        const pt = argmax(tl[j]);
        stats.n++;
        const right =
          JSON.stringify(greedy[j].action) === JSON.stringify(ex.action) ||
          formatAction(greedy[j].action) === formatAction(ex.action);
        if (right) stats.greedyRight++;
        const tk = template(ex);
        const b = byTpl.get(tk) ?? { n: 0, right: 0 };
        b.n++;
        if (right) b.right++;
        byTpl.set(tk, b);
        let why = '';
        if (pt !== tt) {
          stats.typeWrong++;
          why = `type ${typeNames[pt]} for ${typeNames[tt]}`;
          const k = `${typeNames[tt]}->${typeNames[pt]}`;
          confusion.set(k, (confusion.get(k) ?? 0) + 1);
        } else {
          if (te >= 0) {
            stats.elemN++;
            const pe = argmax(el[j]);
            if (pe !== te) {
              stats.elemWrong++;
              const top = el[j]
                .map((v, k) => [v, k] as const)
                .sort((a, c) => c[0] - a[0])
                .slice(0, 3)
                .map(
                  ([v, k]) =>
                    `${st.elements[k]?.index}:"${st.infos[k]?.label.slice(0, 30)}" ${Math.exp(v).toFixed(2)}`,
                );
              why = `element: want ${st.elements[te].index}:"${st.infos[te].label.slice(0, 30)}" top ${top.join(' | ')}`;
            }
          }
          if (!why && ta >= 0) {
            stats.argN++;
            const pa = argmax(al[j]);
            if (pa !== ta) {
              stats.argWrong++;
              const top = al[j]
                .map((v, k) => [v, k] as const)
                .sort((a, c) => c[0] - a[0])
                .slice(0, 3)
                .map(([v, k]) => `"${st.candidates[k]?.text.slice(0, 30)}" ${Math.exp(v).toFixed(2)}`);
              why = `argument: want "${st.candidates[ta].text.slice(0, 40)}" top ${top.join(' | ')}`;
            }
          }
        }
        if (why && shown.length < show && name === 'val') {
          shown.push(
            `${ex.taskId} step ${ex.stepIndex} ${new URL(ex.state.observation.url).pathname}\n     gt ${formatAction(ex.action)} got ${formatAction(greedy[j].action)}\n     ${why}`,
          );
        }
      });
    });
    batch.dispose();
  }
  const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)}%`;
  console.log(
    `\n== ${name}: n ${stats.n} greedy-exact ${pct(stats.greedyRight, stats.n)} | type wrong ${pct(stats.typeWrong, stats.n)} | element wrong given type ${pct(stats.elemWrong, stats.elemN)} (${stats.elemN}) | arg wrong given type+elem ${pct(stats.argWrong, stats.argN)} (${stats.argN})`,
  );
  console.log(
    '   type confusions',
    [...confusion]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .join(' '),
  );
  if (name === 'val') {
    console.log(
      '   per template',
      [...byTpl]
        .sort()
        .map(([k, v]) => `${k} ${v.right}/${v.n}`)
        .join(', '),
    );
    for (const s of shown) console.log(`  - ${s}`);
  }
}
policy.dispose();

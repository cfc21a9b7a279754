/**
 * How much of the teacher's decision survives the compact LM observation (src/agent/lm-prompt.ts):
 * over every step of a collection's verified successes, at several token budgets, the share of steps
 * whose acted-on element is among the elements shown (click, input, select, scroll on an element),
 * the share of `done` answers whose words that the page shows are all still shown (a composed answer
 * is not on the page as such), and the rendered size.
 *
 *   npx tsx bench/lm-observation.ts --run DIR [--budgets 256,384,512,768,1024]
 *
 * DIR is a collection's run folder (for a demo run folder, its `collect` folder).
 *
 * The target: the teacher's element survives in at least 98% of steps at the default budget.
 */

import type { HistoryEntry } from '../src/agent/agent.ts';
import { estimateTokens, renderLmObservation } from '../src/agent/lm-prompt.ts';
import { RunStore } from '../src/store/run-store.ts';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const runDir = arg('run');
if (!runDir) {
  console.error('usage: npx tsx bench/lm-observation.ts --run DIR [--budgets 256,384,512,768,1024]');
  process.exit(2);
}
const budgets = (arg('budgets') ?? '256,384,512,768,1024').split(',').map(Number);

const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
/** Words too common to say whether an answer survived. */
const COMMON = new Set([
  'the',
  'a',
  'an',
  'of',
  'for',
  'to',
  'in',
  'and',
  'it',
  'is',
  'per',
  'your',
  'has',
  'been',
  'was',
]);
const store = RunStore.open(runDir, { readonly: true });
interface Tally {
  elementSteps: number;
  elementKept: number;
  doneSteps: number;
  doneShown: number;
  tokens: number[];
  misses: string[];
  doneMisses: string[];
}
const tallies = new Map<number, Tally>(
  budgets.map((b) => [
    b,
    { elementSteps: 0, elementKept: 0, doneSteps: 0, doneShown: 0, tokens: [], misses: [], doneMisses: [] },
  ]),
);
let trajectories = 0;
let steps = 0;
let fullTokens = 0;
for (const s of store.listTrajectorySummaries({ success: true })) {
  const t = store.getTrajectory(s.id);
  if (!t) continue;
  trajectories++;
  const history: HistoryEntry[] = [];
  for (const step of t.steps) {
    steps++;
    fullTokens += estimateTokens(step.observation.text);
    const a = step.action;
    const index = 'index' in a && typeof a.index === 'number' ? a.index : null;
    for (const [budget, tally] of tallies) {
      const r = renderLmObservation({ task: t.task, observation: step.observation, history }, budget);
      tally.tokens.push(r.tokens);
      if (index !== null) {
        tally.elementSteps++;
        if (r.keptElements.includes(index)) tally.elementKept++;
        else if (tally.misses.length < 8) {
          const e = step.observation.elements.find((x) => x.index === index);
          tally.misses.push(
            `${t.task.id} step ${step.index}: ${a.type} [${index}] ${e?.tag} "${e?.name || e?.text}"`,
          );
        }
      } else if (a.type === 'done' && a.text.trim()) {
        // A composed answer ("595 calories per serving") is not on the page as such: what must survive
        // the cut are the answer's words that the full page shows.
        const pageWords = words(
          `${step.observation.text} ${step.observation.texts.map((b) => b.text).join(' ')}`,
        );
        const needed = [...words(a.text)].filter((w) => pageWords.has(w) && !COMMON.has(w));
        if (!needed.length) continue;
        tally.doneSteps++;
        const shown = words(r.user);
        if (needed.every((w) => shown.has(w))) tally.doneShown++;
        else if (tally.doneMisses.length < Number(process.env.MISSES ?? 6))
          tally.doneMisses.push(
            `${t.task.id}: done "${a.text.trim()}" (missing: ${needed.filter((w) => !shown.has(w)).join(', ')})`,
          );
      }
    }
    history.push({
      stepIndex: step.index,
      url: step.observation.url,
      observation: step.observation,
      output: step.output,
      action: step.action,
      result: step.result,
    });
  }
}
store.close();
if (!trajectories) {
  // A demo folder keeps its collection one level down (`<run>/collect`); say so instead of a table of n/a.
  console.error(
    `no verified successes in ${runDir}/store.sqlite: pass the folder that collected them (for a demo run folder, ${runDir}/collect)`,
  );
  process.exit(1);
}

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');
const q = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
console.log(
  `${trajectories} verified successes, ${steps} steps; the full page text averages ${Math.round(fullTokens / Math.max(1, steps))} estimated tokens a step`,
);
console.log('| budget | element kept | answer words on the page kept | tokens mean | tokens p95 |');
console.log('|---|---|---|---|---|');
for (const [budget, t] of tallies) {
  const mean = t.tokens.reduce((x, y) => x + y, 0) / Math.max(1, t.tokens.length);
  console.log(
    `| ${budget} | ${pct(t.elementKept, t.elementSteps)} (${t.elementKept}/${t.elementSteps}) | ${pct(t.doneShown, t.doneSteps)} (${t.doneShown}/${t.doneSteps}) | ${mean.toFixed(0)} | ${q(t.tokens, 0.95)} |`,
  );
}
for (const [budget, t] of tallies) {
  if (t.misses.length) console.log(`\nmissed at ${budget}:\n  ${t.misses.join('\n  ')}`);
  if (t.doneMisses.length) console.log(`answers not shown at ${budget}:\n  ${t.doneMisses.join('\n  ')}`);
}

import { syntheticTrajectories } from './testing/synthetic.ts';
import { featurizeState, DEFAULT_FEATURIZER, argumentMask } from './featurizer.ts';
import { taskContext, selectElements, elementDense } from './element-features.ts';
import { buildCandidates } from './candidates.ts';
import { candidateDense } from './candidate-features.ts';
const trajs = syntheticTrajectories(40, 1, 120);
const states = trajs.flatMap((t) => t.steps.map((s, i) => ({ task: t.task, observation: s.observation, history: t.steps.slice(0, i).map((x) => x.action) })));
for (let rep = 0; rep < 3; rep++) {
  const t0 = performance.now();
  for (const s of states) featurizeState(s, DEFAULT_FEATURIZER);
  console.log('featurize ms/state', ((performance.now() - t0) / states.length).toFixed(2), states.length);
}
const time = (name: string, f: (s: any) => unknown) => { const t0 = performance.now(); for (const s of states) f(s); console.log(name, ((performance.now() - t0) / states.length).toFixed(3)); };
time('ctx', (s) => taskContext(s.task.objective, '', s.history));
time('select', (s) => selectElements(s.observation, taskContext(s.task.objective, '', s.history), 128));
time('elemDense', (s) => { const ctx = taskContext(s.task.objective, '', s.history); elementDense(s.observation, selectElements(s.observation, ctx, 128), ctx); });
time('cands', (s) => { const ctx = taskContext(s.task.objective, '', s.history); const els = selectElements(s.observation, ctx, 128); buildCandidates(s.task.objective, '', s.observation, els, DEFAULT_FEATURIZER); });
time('candDense', (s) => { const ctx = taskContext(s.task.objective, '', s.history); const els = selectElements(s.observation, ctx, 128); candidateDense(buildCandidates(s.task.objective, '', s.observation, els, DEFAULT_FEATURIZER), els, ctx); });
import { hashText } from './text.ts';
import { elementLabel, elementAttrText } from './element-features.ts';
time('hashElems', (s) => { for (const el of s.observation.elements) { hashText(elementLabel(el), 8192, 17, 32); hashText(elementAttrText(el), 8192, 17, 16, 'a:'); } });
time('pageSummary+hist', (s) => hashText(s.task.objective, 8192, 17, 96));

/**
 * Developer probe for the student's final answers (not part of the pipeline): for every failed
 * episode of an eval or rollout store that ended in `done`, prints the answer the verifier
 * expected, whether a candidate holds it, and the student's top done answers with probabilities.
 *
 *   npx tsx scripts/probe-done-answers.ts runs/eval/store.sqlite models/sft
 */
import Database from 'better-sqlite3';
import { Trajectory } from '../src/core/trajectory.ts';
import { initPolicyBackend } from '../src/policy/backend.ts';
import { stateStructure } from '../src/policy/featurizer.ts';
import { trajectoryStepState } from '../src/policy/step-state.ts';
import { loadStudentPolicy } from '../src/policy/student-policy.ts';

await initPolicyBackend();
const [dbPath, model] = process.argv.slice(2);
const policy = await loadStudentPolicy(model);
const db = new Database(dbPath, { readonly: true });
const rows = db.prepare('SELECT body FROM trajectories WHERE success = 0').all() as { body: string }[];
for (const { body } of rows) {
  const t = Trajectory.parse(JSON.parse(body));
  const i = t.steps.length - 1;
  if (i < 0 || t.steps[i].action.type !== 'done') continue;
  const expected = /expected \$?"?([^")]+)"?/.exec(t.verdict?.reason ?? '')?.[1] ?? '?';
  const state = trajectoryStepState(t, i);
  const st = stateStructure(state, policy.featurizer);
  const has = st.candidates.filter((c) => c.kind === 'text' && c.text.includes(expected.split(',')[0]));
  const top = policy
    .enumerate(state)
    .filter((a) => a.action.type === 'done')
    .sort((a, b) => b.logProb - a.logProb)
    .slice(0, 4);
  const shown = has.map((c) => JSON.stringify(c.text)).slice(0, 3);
  console.log(
    `${t.task.id}  expected ${expected} | cands ${st.candidates.length} with-expected: ${shown.join(', ') || 'NONE'}`,
  );
  const answers = top.map(
    (a) =>
      `${JSON.stringify(a.action.type === 'done' ? a.action.text : '').slice(0, 30)} ${Math.exp(a.logProb).toFixed(3)}`,
  );
  console.log('   top done:', answers.join(' | '));
}

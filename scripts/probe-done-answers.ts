/**
 * Developer probe for the student's final answers (not part of the pipeline): for every failed
 * episode of an eval or rollout store that ended in `done`, prints the answer the verifier
 * expected, whether a candidate holds it, and the student's top done answers with probabilities.
 *
 *   npx tsx scripts/probe-done-answers.ts runs/eval/store.sqlite models/sft
 */
import Database from 'better-sqlite3';
import { agentView } from '../src/core/task.ts';
import { stateStructure } from '../src/policy/featurizer.ts';
import { initPolicyBackend } from '../src/policy/backend.ts';
import { loadStudentPolicy } from '../src/policy/student-policy.ts';
await initPolicyBackend();
const [dbPath, model] = process.argv.slice(2);
const policy = await loadStudentPolicy(model);
const db = new Database(dbPath, { readonly: true });
for (const { body } of db.prepare('select body from trajectories where success=0').all() as { body: string }[]) {
  const t = JSON.parse(body);
  const i = t.steps.length - 1;
  const s = t.steps[i];
  if (s.action.type !== 'done') continue;
  const expected = /expected \$?"?([^")]+)"?/.exec(t.verdict.reason)?.[1] ?? '?';
  const state = { task: agentView(t.task), observation: { ...s.observation, notes: [] }, history: t.steps.slice(0, i).map((x: any) => x.action), historyUrls: t.steps.slice(0, i).map((x: any) => x.observation.url) };
  const st = stateStructure(state as any, policy.featurizer);
  const has = st.candidates.filter((c) => c.kind === 'text' && c.text.includes(expected.split(',')[0]));
  const all = policy.enumerate(state as any).filter((a) => a.action.type === 'done').sort((a, b) => b.logProb - a.logProb).slice(0, 4);
  console.log(`${t.task.id}  expected ${expected} | cands ${st.candidates.length} with-expected: ${has.map((c) => JSON.stringify(c.text)).slice(0, 3).join(', ') || 'NONE'}`);
  console.log('   top done:', all.map((a) => `${JSON.stringify((a.action as any).text).slice(0, 30)} ${Math.exp(a.logProb).toFixed(3)}`).join(' | '));
}

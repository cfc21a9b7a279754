/**
 * Developer probe: runs the heuristic teacher on K world train tasks per template (round 0, no
 * notes), then once more with the rules reflector's note on the failures, and prints success per
 * template with the verifier's reason for failures. Not part of the pipeline.
 *
 *   npx tsx scripts/probe-teacher.ts [K] [template-prefix] [--verbose]
 */

import { runEpisode } from '../src/agent/episode.ts';
import { HeuristicAgent } from '../src/agent/heuristic/heuristic-agent.ts';
import { openWorldRuntime } from '../src/cli/runtime.ts';
import { RulesReflector } from '../src/collect/rules-reflector.ts';
import { formatAction } from '../src/core/action.ts';
import { renderNote } from '../src/core/reflection.ts';
import type { Task } from '../src/core/task.ts';
import { generateWorldTasks } from '../src/world/tasks.ts';

const K = Number(process.argv[2] ?? 2);
const prefix = process.argv[3] && !process.argv[3].startsWith('--') ? process.argv[3] : '';
const verbose = process.argv.includes('--verbose');
const all = generateWorldTasks({ split: 'train' }).filter((t) => t.id.startsWith(prefix));
const byTemplate = new Map<string, Task[]>();
for (const t of all) {
  const k = (t.verifier as { template: string }).template;
  const list = byTemplate.get(k) ?? [];
  if (list.length < K) list.push(t);
  byTemplate.set(k, list);
}
const tasks = [...byTemplate.values()].flat();
const rt = await openWorldRuntime({ port: 0, screenshots: false });
const reflector = new RulesReflector();
const results: Array<{ task: Task; r0: boolean; r1: boolean | null; reason: string; steps: number }> = [];
const queue = tasks.slice();
async function worker() {
  const env = await rt.makeEnv();
  const agent = new HeuristicAgent();
  for (;;) {
    const task = queue.shift();
    if (!task) break;
    const t0 = await runEpisode({ agent, env, task, start: rt.start, verify: rt.verify, maxSteps: 30 });
    let r1: boolean | null = null;
    let reason = t0.verdict?.reason ?? '';
    if (verbose && !t0.verdict?.success) {
      console.log(`--- ${task.id}: ${task.objective}`);
      for (const s of t0.steps)
        console.log(
          `   ${formatAction(s.action)}  ${s.output.next_goal}${s.result.error ? `  ! ${s.result.error.slice(0, 120)}` : ''}`,
        );
      console.log(`   => ${t0.endReason} ${reason}`);
    }
    if (!t0.verdict?.success) {
      const refl = await reflector.reflect({ trajectory: t0, previous: [] });
      const t1 = await runEpisode({
        agent,
        env,
        task,
        start: rt.start,
        verify: rt.verify,
        maxSteps: 30,
        notes: [renderNote(refl)],
        round: 1,
      });
      r1 = !!t1.verdict?.success;
      if (!r1) reason += ` | r1: ${t1.verdict?.reason ?? t1.endDetail}`;
    }
    results.push({ task, r0: !!t0.verdict?.success, r1, reason, steps: t0.steps.length });
    console.log(
      `${task.id.padEnd(36)} r0 ${t0.verdict?.success ? 'OK ' : 'no '} r1 ${r1 === null ? '-' : r1 ? 'OK' : 'no'}  ${t0.steps.length} steps  ${t0.verdict?.success ? '' : reason.slice(0, 200)}`,
    );
  }
  await env.close();
}
await Promise.all([worker(), worker()]);
await rt.close();
const tpl = (t: Task) => (t.verifier as { template: string }).template;
for (const [k] of byTemplate) {
  const rs = results.filter((r) => tpl(r.task) === k);
  const ok0 = rs.filter((r) => r.r0).length;
  const ok1 = rs.filter((r) => r.r0 || r.r1).length;
  console.log(
    `${k.padEnd(34)} r0 ${ok0}/${rs.length}  with-notes ${ok1}/${rs.length}  ${rs
      .filter((r) => !r.r0)
      .map((r) => r.reason.slice(0, 160))
      .join(' || ')}`,
  );
}
const n = results.length;
console.log(
  `TOTAL r0 ${results.filter((r) => r.r0).length}/${n}  after-notes ${results.filter((r) => r.r0 || r.r1).length}/${n}  second-round success on failures ${results.filter((r) => r.r1).length}/${results.filter((r) => !r.r0).length}`,
);

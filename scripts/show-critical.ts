/**
 * Developer view of mined critical states: for a sample (one per label first, seeded), prints the
 * task, the label and its reason, both sides' earlier actions and the two actions that diverged,
 * so a reader can judge whether the label fits. Not part of the pipeline.
 *
 *   npx tsx scripts/show-critical.ts FILE.jsonl [N] [seed]
 */
import { readFileSync } from 'node:fs';
import { formatAction } from '../src/core/action.ts';
import { CriticalState } from '../src/core/critical-state.ts';
import { Rng } from '../src/core/rng.ts';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: npx tsx scripts/show-critical.ts FILE.jsonl [N] [seed]\n');
  process.exit(2);
}
const n = Number(process.argv[3] ?? 5);
const seed = process.argv[4] ?? '0';
const states = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l, i) => {
    const r = CriticalState.safeParse(JSON.parse(l));
    if (!r.success) throw new Error(`${file}:${i + 1}: ${r.error.issues[0]?.message}`);
    return r.data;
  });

// One per label first (a reader should see the taxonomy at work), then the rest at random.
const shuffled = new Rng(`show:${seed}`).shuffle(states);
const picked: CriticalState[] = [];
const labels = new Set<string>();
for (const s of shuffled) {
  if (labels.has(s.label) || picked.length >= n) continue;
  labels.add(s.label);
  picked.push(s);
}
for (const s of shuffled) if (picked.length < n && !picked.includes(s)) picked.push(s);

/** The action with the name of the element it targets, as the agent saw it. */
function describe(side: CriticalState['success']): string {
  const a = side.action;
  const idx = 'index' in a && typeof a.index === 'number' ? a.index : null;
  const el = idx === null ? undefined : side.observation.elements.find((e) => e.index === idx);
  const name = el ? ` on ${el.role || el.tag} "${(el.name || el.text).slice(0, 60)}"` : '';
  return `${formatAction(a)}${name}`;
}

const hist = (h: CriticalState['success']['history']) =>
  h.length ? h.map((a, i) => `      ${i + 1}. ${formatAction(a)}`).join('\n') : '      (none)';
for (const [i, s] of picked.entries()) {
  const c = s.comparability;
  process.stdout.write(
    [
      `#${i + 1} [${s.label}] ${s.task.id} (${s.task.site})`,
      `  task: ${s.task.objective}`,
      `  why this label: ${s.labelReason}`,
      `  comparability ${c.total.toFixed(2)} (url ${c.url.toFixed(2)}, elements ${c.elements.toFixed(2)}, memory ${c.memory.toFixed(2)}, progress ${c.progress.toFixed(2)}) at ${s.success.observation.url}`,
      `  success run, step ${s.success.stepIndex + 1}; before it:`,
      hist(s.success.history),
      `    -> ${describe(s.success)}   (ground truth)`,
      `  failed run, step ${s.failure.stepIndex + 1}; before it:`,
      hist(s.failure.history),
      `    -> ${describe(s.failure)}`,
      '',
    ].join('\n'),
  );
}

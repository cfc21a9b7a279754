/**
 * What did RL change in an lm demo's students, when pass@1 sits at the floor? Each student's greedy
 * action, step by step, on two probe sets of a `rmsweb demo --preset lm` folder, compared with a
 * paired bootstrap against the Salvage-DS student of the same training seed:
 *
 * - mined: every critical state the RL stages trained on (`<run>/lm/rl-data.jsonl`), scored against
 *   the state's truth (the teacher's action there). It measures whether RL fitted its own states.
 * - held-out: a seeded sample of the run's lm export rows (`<run>/exports/lm/train.jsonl`) that
 *   neither the SFT sample (`<run>/lm/sft-data.jsonl`) nor the RL rows hold: teacher steps of the
 *   same train tasks that no stage trained on.
 *
 *   npx tsx bench/lm-step-probes.ts --run RUN [--student LABEL=DIR ...] [--held-out 100] [--seed 0]
 *       [--threads 2] [--out results/lm-step-probes]
 *
 * Without --student, every finished student under `<run>/models` is probed (a folder with
 * `model.safetensors` and its trainer's record). Each student's replies are kept in
 * `<run>/step-probes/<label>.json` and reused while its weights and the probe rows are unchanged, so
 * an interrupted run, or a later one after more seeds have trained, only probes what is new.
 * "Same action" is a lower bound on step accuracy (another element may do the same), the same bound
 * for every student.
 */

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { lmActionText, parseLmAction } from '../src/agent/lm-prompt.ts';
import { LM_REFERENCE, LM_ROWS, lmRowOf } from '../src/cli/pipeline/lm-results.ts';
import { commandLine, gitState } from '../src/cli/pipeline/provenance.ts';
import { InputError, Rng } from '../src/core/index.ts';
import { pairedBootstrap } from '../src/eval/bootstrap.ts';
import { HfCompletionModel } from '../src/models/hf-completion-model.ts';
import { readJsonlRows, readLmRows, replyAction } from './lm-rows.ts';

const USAGE =
  'usage: npx tsx bench/lm-step-probes.ts --run RUN [--student LABEL=DIR ...] [--held-out 100] [--seed 0] ' +
  '[--threads 2] [--out results/lm-step-probes]';
const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const all = (name: string) => args.flatMap((a, i) => (a === `--${name}` && args[i + 1] ? [args[i + 1]] : []));
const run = arg('run');
if (!run || args.includes('--help')) {
  console.error(USAGE);
  process.exit(run ? 0 : 2);
}
const heldOutN = Number(arg('held-out') ?? 100);
const seed = Number(arg('seed') ?? 0);
const threads = Number(arg('threads') ?? 2);
const out = arg('out');
const started = Date.now();

interface Probe {
  id: string;
  prompt: string;
  truth: string;
}

// The RL rows as `rmsweb export rl --format verl` writes them: only the fields read here.
const RlRow = z.object({
  prompt: z.string().min(1),
  reward_model: z.object({ ground_truth: z.string().min(1) }),
  extra_info: z.object({ critical_state_id: z.string() }),
});

function readRlRows(file: string): Probe[] {
  return readJsonlRows(file, RlRow, 'an RL row').map((r) => ({
    id: r.extra_info.critical_state_id,
    prompt: r.prompt,
    truth: r.reward_model.ground_truth,
  }));
}

const need = (file: string) => {
  if (!existsSync(file))
    throw new InputError(`${file} is missing: is --run an lm demo folder whose RL rows exist?`);
  return file;
};
const mined = readRlRows(need(join(run, 'lm', 'rl-data.jsonl')));
const trained = new Set([
  ...readLmRows(need(join(run, 'lm', 'sft-data.jsonl'))).map((r) => r.prompt),
  ...mined.map((r) => r.prompt),
]);
const exportRows = readLmRows(need(join(run, 'exports', 'lm', 'train.jsonl')), { completion: true });
const untrained = exportRows.filter((r) => !trained.has(r.prompt));
const heldOut: Probe[] = new Rng(`lm-step-probes:${seed}`)
  .shuffle([...untrained])
  .slice(0, heldOutN)
  .map((r) => ({
    id: createHash('sha256').update(r.prompt).digest('hex').slice(0, 12),
    prompt: r.prompt,
    truth: r.completion,
  }));
const probes = { mined, heldOut } as const;
type ProbeSet = keyof typeof probes;
const rowsKey = createHash('sha256')
  .update(JSON.stringify([mined, heldOut].map((s) => s.map((p) => [p.prompt, p.truth]))))
  .digest('hex');

/** Finished students: a folder with weights and the record its trainer writes last. */
function students(): Array<{ label: string; dir: string }> {
  const given = all('student').map((s) => {
    const i = s.indexOf('=');
    if (i <= 0) throw new InputError(`--student ${s}: expected LABEL=DIR`);
    return { label: s.slice(0, i), dir: s.slice(i + 1) };
  });
  if (given.length) return given;
  const models = join(run as string, 'models');
  return readdirSync(models)
    .map((name) => ({ label: name, dir: join(models, name) }))
    .filter(
      ({ dir }) =>
        existsSync(join(dir, 'model.safetensors')) &&
        (existsSync(join(dir, 'lm-rl.json')) || existsSync(join(dir, 'rmsweb-trainer.json'))),
    )
    .sort((a, b) => a.label.localeCompare(b.label));
}

interface Reply {
  id: string;
  truth: string;
  reply: string;
  exact: boolean;
  sameType: boolean;
}
type Replies = Record<ProbeSet, Reply[]>;

function stamp(dir: string): string {
  const f = join(dir, 'model.safetensors');
  if (!existsSync(f)) return dir; // a .gguf file or another layout: keyed by its path only
  const s = statSync(f);
  return `${s.size}:${s.mtimeMs}`;
}

/** Seconds each student's probing took, in the invocation that ran it. */
const probeSeconds: Record<string, { seconds: number; threads: number | null; commit: string | null }> = {};

async function probe(label: string, dir: string): Promise<Replies> {
  const cacheDir = join(run as string, 'step-probes');
  const cache = join(cacheDir, `${label}.json`);
  const key = { rowsKey, model: resolve(dir), stamp: stamp(dir) };
  if (existsSync(cache)) {
    const c = JSON.parse(readFileSync(cache, 'utf8'));
    if (JSON.stringify(c.key) === JSON.stringify(key)) {
      console.error(`${label}: replies kept from ${cache}`);
      probeSeconds[label] = { seconds: c.seconds, threads: c.threads ?? null, commit: c.commit ?? null };
      return c.replies;
    }
  }
  const model = new HfCompletionModel(dir, { field: '--student', threads });
  const replies: Replies = { mined: [], heldOut: [] };
  const total = mined.length + heldOut.length;
  let done = 0;
  const t0 = Date.now();
  try {
    for (const set of ['mined', 'heldOut'] as const) {
      for (const p of probes[set]) {
        const r = await model.complete({ prompt: p.prompt, maxTokens: 64, temperature: 0, stop: ['\n'] });
        const teacher = parseLmAction(p.truth);
        const student = replyAction(r.text);
        const text = student ? lmActionText(student) : `unusable: ${JSON.stringify(r.text)}`;
        replies[set].push({
          id: p.id,
          truth: lmActionText(teacher),
          reply: text,
          exact: text === lmActionText(teacher),
          sameType: student?.type === teacher.type,
        });
        done++;
        if (done % 20 === 0 || done === total) {
          const s = (Date.now() - t0) / 1000;
          console.error(`  ${label}: ${done}/${total} steps, ${(s / done).toFixed(2)} s a step`);
        }
      }
    }
  } finally {
    model.close();
  }
  const git = gitState();
  probeSeconds[label] = {
    seconds: (Date.now() - t0) / 1000,
    threads,
    commit: git.commit && `${git.commit.slice(0, 7)}${git.dirty ? ' (with uncommitted changes)' : ''}`,
  };
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(cache, `${JSON.stringify({ key, ...probeSeconds[label], replies }, null, 1)}\n`);
  return replies;
}

const list = students();
if (!list.length) throw new InputError(`no finished student under ${join(run, 'models')}`);
console.error(
  `${list.length} students; ${mined.length} mined states, ${heldOut.length} held-out steps ` +
    `(of ${untrained.length} export rows no stage trained on)`,
);
const results: Record<string, Replies> = {};
for (const s of list) results[s.label] = await probe(s.label, s.dir);

/** The Salvage-DS student of the same training seed (`-seed<k>` suffix), which every row is paired with. */
const referenceOf = (label: string) => `lm-salvage-ds${/-seed\d+$/.exec(label)?.[0] ?? ''}`;
const order = (label: string) => {
  const at = lmRowOf(label);
  return at ? [at.k, LM_ROWS.findIndex((r) => r.id === at.id)] : [Infinity, 0];
};
list.sort((a, b) => {
  const [x, y] = [order(a.label), order(b.label)];
  return x[0] - y[0] || x[1] - y[1] || a.label.localeCompare(b.label);
});
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const pts = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const exact = (label: string, set: ProbeSet) => results[label][set].map((x) => Number(x.exact));

/** A row's share of probe steps with the teacher's action, and its paired difference from `ref`. */
function cell(mine: number[], ref: number[] | null, key: string) {
  return {
    n: mine.length,
    same: mean(mine),
    delta: ref ? pairedBootstrap(mine, ref, { seed: `lm-step-probes:${seed}:${key}` }) : null,
  };
}
type Cell = ReturnType<typeof cell>;
const rows = list.map(({ label }) => {
  const ref = referenceOf(label);
  const paired = label !== ref && results[ref];
  const at = (set: ProbeSet) => cell(exact(label, set), paired ? exact(ref, set) : null, `${label}:${set}`);
  return { label, reference: ref, mined: at('mined'), heldOut: at('heldOut') };
});

// Over training seeds: each probe step's share over the seeds a row shares with Salvage-DS, paired
// step by step with Salvage-DS's over the same seeds (as lm-student.md pairs pass@1 by task).
const pooled = LM_ROWS.filter((r) => r.id !== LM_REFERENCE).flatMap((def) => {
  const seeds = list
    .map(({ label }) => ({ label, at: lmRowOf(label) }))
    .filter(({ label, at }) => at?.id === def.id && results[referenceOf(label)])
    .map(({ label, at }) => ({ label, k: at?.k ?? 0 }));
  if (seeds.length < 2) return [];
  const avg = (labels: string[], set: ProbeSet) =>
    exact(labels[0], set).map((_, i) => mean(labels.map((l) => exact(l, set)[i])));
  const at = (set: ProbeSet) =>
    cell(
      avg(
        seeds.map((s) => s.label),
        set,
      ),
      avg(
        seeds.map((s) => referenceOf(s.label)),
        set,
      ),
      `${def.id}:pooled:${set}`,
    );
  return [{ row: def.title, seeds: seeds.map((s) => s.k), mined: at('mined'), heldOut: at('heldOut') }];
});

const deltaText = (c: Cell, isRef: boolean) =>
  c.delta
    ? `${pts(c.delta.diff)} pts [${pts(c.delta.lo)}, ${pts(c.delta.hi)}]`
    : isRef
      ? 'reference'
      : 'no reference';
const head = (first: string) => [
  `| ${first} | mined states: same action | Δ vs Salvage-DS [95% CI] | held-out steps: same action | Δ vs Salvage-DS [95% CI] |`,
  '|---|---|---|---|---|',
];
const line = (name: string, r: { mined: Cell; heldOut: Cell }, isRef: boolean) =>
  `| ${name} | ${pct(r.mined.same)} (${r.mined.n}) | ${deltaText(r.mined, isRef)} | ` +
  `${pct(r.heldOut.same)} (${r.heldOut.n}) | ${deltaText(r.heldOut, isRef)} |`;
const lines = [...head('student'), ...rows.map((r) => line(r.label, r, r.label === r.reference))];
const pooledLines = pooled.length
  ? [
      '',
      'Over training seeds (each step averaged over the seeds a row shares with Salvage-DS):',
      '',
      ...head('row (training seeds)'),
      ...pooled.map((p) => line(`${p.row} (${p.seeds.join(', ')})`, p, false)),
    ]
  : [];

// By action type: where a student's steps are right, and what it answers. A student that never
// answers `done` cannot finish a task, whatever its share of right clicks.
const typeOf = (text: string) =>
  text.startsWith('unusable') ? 'unusable' : (Object.keys(JSON.parse(text))[0] ?? '?');
const byTypeLines = (['mined', 'heldOut'] as const).flatMap((set) => {
  const types = [
    ...new Set(
      list.flatMap(({ label }) => results[label][set].flatMap((x) => [typeOf(x.truth), typeOf(x.reply)])),
    ),
  ];
  const name = set === 'mined' ? 'mined states' : 'held-out steps';
  return [
    '',
    `${name}, by action type: right / the teacher's steps of that type (the student's answers of that type)`,
    '',
    `| student | ${types.join(' | ')} |`,
    `|---|${types.map(() => '---|').join('')}`,
    ...list.map(({ label }) => {
      const r = results[label][set];
      const cells = types.map((t) => {
        const taught = r.filter((x) => typeOf(x.truth) === t);
        const answered = r.filter((x) => typeOf(x.reply) === t).length;
        return `${taught.filter((x) => x.exact).length}/${taught.length} (${answered})`;
      });
      return `| ${label} | ${cells.join(' | ')} |`;
    }),
  ];
});
console.log([...lines, ...pooledLines, ...byTypeLines].join('\n'));

if (out) {
  const git = gitState();
  const seconds = (Date.now() - started) / 1000;
  const md = [
    `# LM students step by step: the mined states RL trained on, and held-out teacher steps`,
    '',
    `Each student's greedy action (temperature 0, read as LmAgent reads it) against the teacher's, on`,
    `every mined critical state of the run's RL rows (${mined.length}) and on ${heldOut.length} export rows of the same`,
    `train tasks that no stage trained on (a seeded sample of the ${untrained.length} such rows). The CI is a paired bootstrap over`,
    `the probe steps (10,000 resamples) of the student minus the Salvage-DS student of the same training`,
    'seed. "Same action" is a lower bound on step accuracy, the same bound for every student.',
    '',
    ...lines,
    ...pooledLines,
    ...byTypeLines,
    '',
    `- command: \`${commandLine().replace(/^rmsweb /, 'npx tsx bench/lm-step-probes.ts ')}\` (the run: an lm demo data folder, \`${basename(resolve(run))}\`)`,
    `- commit: ${git.commit ?? 'unknown'}${git.dirty ? ' (with uncommitted changes)' : ''}`,
    `- sample seed: ${seed}; threads: ${threads}`,
    `- wall time: ${seconds.toFixed(0)} s for this invocation; probing each student took ${list
      .map(({ label }) => {
        const p = probeSeconds[label];
        const how = [
          p.threads && `${p.threads} torch thread${p.threads > 1 ? 's' : ''}`,
          p.commit && `at ${p.commit}`,
        ];
        return `${label} ${Math.round(p.seconds)} s${how.some(Boolean) ? ` (${how.filter(Boolean).join(', ')})` : ''}`;
      })
      .join(', ')}, in the invocation that probed it`,
    '',
  ].join('\n');
  mkdirSync(resolve(out, '..'), { recursive: true });
  writeFileSync(`${out}.md`, md);
  writeFileSync(
    `${out}.json`,
    `${JSON.stringify({ command: commandLine(), commit: git.commit, dirty: git.dirty, seed, seconds, probeSeconds, rows, pooled }, null, 2)}\n`,
  );
  console.error(`wrote ${out}.md and ${out}.json`);
}

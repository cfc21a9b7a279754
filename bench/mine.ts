/**
 * Benchmark of critical-state mining: 10,000 success/failure pairs of 20-step trajectories, generated
 * from a seed, must be mined (pairing, features, alignment, backward walk, rules tagging) in under 60 s.
 *
 *   npm run bench:mine [-- --pairs 10000 --steps 20 --seed 1]
 *
 * Pages are drawn from per-site templates (shared navigation plus page-specific controls and item
 * links), so states repeat across runs the way real site pages do; every step still gets its own
 * observation object, so nothing is cached by identity.
 */
import { type Action, type Element, Observation, Rng, type Trajectory } from '../src/core/index.ts';
import { act, element, task, trajectory } from '../src/mine/fixtures.ts';
import { formatMineStats, mineCriticalStates } from '../src/mine/index.ts';

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const PAIRS = arg('pairs', 10_000);
const STEPS = arg('steps', 20);
const SEED = arg('seed', 1);
const FAILURES_PER_SUCCESS = 5;
const LIMIT_S = 60;

const WORDS =
  'trail road running shoe boot jacket red blue black size small large price sale new pro max lite gtx waterproof'.split(
    ' ',
  );

interface Template {
  url: string;
  elements: Element[];
}

function siteTemplates(rng: Rng, site: number): Template[] {
  const nav = ['Home', 'Deals', 'Cart', 'Account', 'Help'].map((n) => ({
    name: n,
    href: `/${n.toLowerCase()}`,
  }));
  return Array.from({ length: 8 }, (_, p) => {
    const items = Array.from({ length: rng.int(12, 24) }, (_, k) => {
      const name = `${rng.pick(WORDS)} ${rng.pick(WORDS)} ${rng.pick(WORDS)} ${k}`;
      return { name, href: `/s${site}/p${p}/item/${k}` };
    });
    const controls = [
      { tag: 'input', role: 'searchbox', name: 'Search' },
      { tag: 'select', name: 'Sort by' },
      { name: 'Apply filters' },
      { name: 'Next page', href: `/s${site}/p${p}?page=2` },
    ];
    const specs = [...nav, ...controls, ...items];
    return {
      url: `http://site${site}.test/s${site}/p${p}${p % 2 ? `?q=${rng.pick(WORDS)}` : ''}`,
      elements: specs.map((s, i) => ({ ...element(i, s), inViewport: i < 20 })),
    };
  });
}

const BASE = Observation.parse({ url: 'http://site.test/' });

function observe(t: Template, memory: string): Observation {
  return { ...BASE, url: t.url, elements: t.elements, memory };
}

function randomAction(rng: Rng, t: Template): Action {
  const r = rng.next();
  if (r < 0.6) return act.click(rng.int(9, t.elements.length - 1));
  if (r < 0.75) return act.input(5, rng.pick(WORDS));
  if (r < 0.85) return act.select(6, rng.pick(['Price: low to high', 'Newest', 'Rating']));
  return act.scroll(rng.bool(0.8));
}

/** A success walks the site's pages; each failure copies a prefix, then diverges and wanders. */
function generate(): Trajectory[] {
  const rng = new Rng(SEED);
  const tasks = Math.ceil(PAIRS / FAILURES_PER_SUCCESS);
  const out: Trajectory[] = [];
  for (let k = 0; k < tasks; k++) {
    const site = k % 50;
    const templates = siteTemplates(rng.fork(`site${site}`), site);
    const t = task(`task-${k}`, `site${site}`);
    const path = Array.from(
      { length: STEPS },
      (_, i) => templates[Math.min(7, Math.floor((i * 8) / STEPS) + rng.int(0, 1))],
    );
    const moves: Array<[Observation, Action]> = path.map((tp, i) => [
      observe(tp, `step ${i} ${rng.pick(WORDS)} ${rng.pick(WORDS)}`),
      i === STEPS - 1 ? act.done(`answer ${k}`) : randomAction(rng, tp),
    ]);
    out.push(trajectory(`s-${k}`, t, moves, true));
    for (let f = 0; f < FAILURES_PER_SUCCESS; f++) {
      const split = rng.int(1, STEPS - 2);
      const fmoves: Array<[Observation, Action]> = moves.slice(0, split).map(([o, a]) => [{ ...o }, a]);
      for (let i = split; i < STEPS; i++) {
        const tp = rng.bool(0.5) ? path[i] : rng.pick(templates);
        const a = i === split ? act.click(rng.int(9, tp.elements.length - 1)) : randomAction(rng, tp);
        fmoves.push([observe(tp, `step ${i} ${rng.pick(WORDS)}`), a]);
      }
      out.push(trajectory(`f-${k}-${f}`, t, fmoves, false, rng.bool(0.3) ? 'max_steps' : 'done'));
    }
  }
  return out;
}

const g0 = performance.now();
const trajectories = generate();
const genS = (performance.now() - g0) / 1000;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const { criticalStates, stats } = await mineCriticalStates(trajectories);
const mineS = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuS = (cpu.user + cpu.system) / 1e6;

console.log(formatMineStats(stats));
console.log(
  `\nbench:mine generated ${trajectories.length} trajectories x ${STEPS} steps in ${genS.toFixed(1)} s; ` +
    `mined ${stats.pairsConsidered} pairs in ${mineS.toFixed(2)} s = ${Math.round(stats.pairsConsidered / mineS)} pairs/s, ` +
    `${cpuS.toFixed(2)} s CPU ` +
    `(${criticalStates.length} critical states, limit ${LIMIT_S} s)`,
);
if (stats.pairsConsidered < PAIRS) {
  console.error(`bench:mine: only ${stats.pairsConsidered} pairs generated, expected ${PAIRS}`);
  process.exit(1);
}
if (mineS > LIMIT_S) {
  console.error(`bench:mine: FAILED, ${mineS.toFixed(1)} s > ${LIMIT_S} s`);
  process.exit(1);
}

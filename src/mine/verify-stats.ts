import type { VerifiedTarget } from './verify.ts';
import { VERIFY_METHODS, type VerifyMethod } from './verify-targets.ts';

/** Counts of one group of verified states. */
export interface VerifyRow {
  states: number;
  /** States whose prefix reproduced (confirmed + not-causal). */
  replayed: number;
  confirmed: number;
  notCausal: number;
  replayFailed: number;
  /** Targets whose branch could not run at all (episode errors, an interrupt): not in `states`, retried on a rerun. */
  errored: number;
  /** confirmed / replayed: the precision of the method on states that could be checked. */
  confirmedShare: number;
  /** replayed / states. */
  replayRate: number;
}

/** One method's rows: overall, per taxonomy label (the miner's label of the pair) and per site. */
export interface MethodSummary {
  overall: VerifyRow;
  perLabel: Record<string, VerifyRow>;
  perSite: Record<string, VerifyRow>;
}

/** What `mine --verify` measured, printed and saved in the stats JSON. */
export interface VerificationSummary {
  methods: Record<VerifyMethod, MethodSummary>;
  /**
   * Cost. `episodes` and `wallMs` are this run's (branches found in the journal cost nothing now);
   * the per-state figures are over the miner's states, from each state's own two branches.
   */
  cost: {
    episodes: number;
    wallMs: number;
    fromJournal: number;
    perMinerState: { episodes: number; wallMs: number };
  };
  options: {
    policy: string;
    replayThreshold: number;
    maxSteps: number;
    workers: number;
    seed: number;
  };
  /** Miner states that could not be targeted (not a world task, runs missing), with the reason. */
  skipped: Array<{ id: string; reason: string }>;
}

function emptyRow(): VerifyRow {
  return {
    states: 0,
    replayed: 0,
    confirmed: 0,
    notCausal: 0,
    replayFailed: 0,
    errored: 0,
    confirmedShare: 0,
    replayRate: 0,
  };
}

function add(row: VerifyRow, r: VerifiedTarget): void {
  // A branch that could not run says nothing about the state: counted apart, retried on a rerun.
  if (r.errored) {
    row.errored++;
    return;
  }
  row.states++;
  const l = r.verification.label;
  if (l === 'confirmed') row.confirmed++;
  else if (l === 'not-causal') row.notCausal++;
  else row.replayFailed++;
  if (l !== 'replay-failed') row.replayed++;
}

function finish(row: VerifyRow): VerifyRow {
  row.confirmedShare = row.replayed ? row.confirmed / row.replayed : 0;
  row.replayRate = row.states ? row.replayed / row.states : 0;
  return row;
}

/** Groups verified targets by method, overall, per label and per site. */
export function summarizeVerification(
  results: readonly VerifiedTarget[],
  extra: Omit<VerificationSummary, 'methods' | 'cost'> & {
    cost: Omit<VerificationSummary['cost'], 'perMinerState'>;
  },
): VerificationSummary {
  const methods = Object.fromEntries(
    VERIFY_METHODS.map((m) => [m, { overall: emptyRow(), perLabel: {}, perSite: {} }]),
  ) as Record<VerifyMethod, MethodSummary>;
  let minerEpisodes = 0;
  let minerWall = 0;
  let minerStates = 0;
  for (const r of results) {
    const m = methods[r.target.method];
    add(m.overall, r);
    m.perLabel[r.target.label] ??= emptyRow();
    m.perSite[r.target.site] ??= emptyRow();
    add(m.perLabel[r.target.label], r);
    add(m.perSite[r.target.site], r);
    if (r.target.method === 'miner') {
      minerStates++;
      minerEpisodes += r.verification.episodes;
      minerWall += r.verification.wallMs;
    }
  }
  for (const m of Object.values(methods)) {
    finish(m.overall);
    for (const row of Object.values(m.perLabel)) finish(row);
    for (const row of Object.values(m.perSite)) finish(row);
  }
  return {
    ...extra,
    methods,
    cost: {
      ...extra.cost,
      perMinerState: {
        episodes: minerStates ? minerEpisodes / minerStates : 0,
        wallMs: minerStates ? Math.round(minerWall / minerStates) : 0,
      },
    },
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function cell(row: VerifyRow | undefined): string {
  if (!row || row.states === 0) return '-'.padEnd(22);
  return `${pct(row.confirmedShare)} (${row.confirmed}/${row.replayed})`.padEnd(22);
}

/** A readable report: the three confirmed shares overall, per label and per site, replay rates, cost. */
export function formatVerification(s: VerificationSummary): string {
  const head = `  ${''.padEnd(22)}${VERIFY_METHODS.map((m) => m.padEnd(22)).join('')}`;
  const line = (name: string, pick: (m: MethodSummary) => VerifyRow | undefined) =>
    `  ${name.padEnd(22)}${VERIFY_METHODS.map((m) => cell(pick(s.methods[m]))).join('')}`;
  const labels = [...new Set(VERIFY_METHODS.flatMap((m) => Object.keys(s.methods[m].perLabel)))].sort();
  const sites = [...new Set(VERIFY_METHODS.flatMap((m) => Object.keys(s.methods[m].perSite)))].sort();
  const replay = VERIFY_METHODS.map((m) => {
    const o = s.methods[m].overall;
    return `${m} ${pct(o.replayRate)} (${o.replayed}/${o.states}${o.errored ? `, ${o.errored} errored` : ''})`;
  }).join(', ');
  const c = s.cost;
  return [
    `verification (continuation: ${s.options.policy} with the solving notes; replay threshold ${s.options.replayThreshold}):`,
    'confirmed share = confirmed / states whose prefix replayed',
    head,
    line('overall', (m) => m.overall),
    "per label (the miner's label of the pair):",
    ...labels.map((l) => line(l, (m) => m.perLabel[l])),
    'per site:',
    ...sites.map((site) => line(site, (m) => m.perSite[site])),
    `replay rate: ${replay}`,
    `cost: ${c.episodes} branch episodes in ${(c.wallMs / 1000).toFixed(1)} s this run` +
      `${c.fromJournal ? ` (${c.fromJournal} branches resumed from the journal)` : ''}; ` +
      `per miner state ${c.perMinerState.episodes.toFixed(1)} episodes, ${(c.perMinerState.wallMs / 1000).toFixed(1)} s of episode time`,
    ...(s.skipped.length
      ? [`skipped ${s.skipped.length} states (${s.skipped[0].reason}${s.skipped.length > 1 ? ', ...' : ''})`]
      : []),
  ].join('\n');
}

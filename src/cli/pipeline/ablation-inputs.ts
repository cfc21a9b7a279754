import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../../core/errors.ts';
import { missingUnits } from './ablation-from-ledger.ts';
import {
  AblationLedger,
  type BaseFingerprint,
  checkpointDigest,
  criticalDigest,
  fingerprint,
  type LedgerFile,
} from './ablation-ledger.ts';
import { hasSnapshot, readSnapshot, snapshotLocation } from './base-snapshot.ts';
import { type Base, openBaseFolder, startStudent } from './base-stages.ts';
import { checkOutFolder, type PipelineSettings } from './context.ts';
import { repoRoot } from './provenance.ts';

/**
 * What `ablate` reads before it writes anything: its options, the ledger, the `--from` folder or
 * the snapshot of its base, and an existing `--out` folder. `checkAblationInputs` validates them
 * all, so a refused run exits 2 naming the file or option and leaves no run folder behind.
 */

/** Training seeds per ablation row unless `--seeds` says otherwise. */
export const DEFAULT_SEEDS = 3;

/** How the ablation runs: training seeds, where to copy the results, and the command line to record. */
export interface AblationOptions {
  /** Reuse a demo run folder's collection, student and mined states. */
  from?: string;
  /** Training seeds per row (default 3): seeds seed, seed+1, ... of the RL runs and the no-reflection student. */
  seeds?: number;
  /** Also write ablation-<preset>.md and .json here (e.g. the repo's results/). */
  resultsDir?: string;
  /** The command line recorded in the results (default: this process's argv). */
  command?: string;
  /**
   * The ledger of finished seeds (default: ablation-<preset>.ledger.json in `resultsDir`, else
   * ablation.ledger.json in the run folder). Commit it with the results: a rerun on a rebuilt base
   * that matches it skips every seed it holds.
   */
  ledger?: string;
  /** The base snapshot's folder (default: see `snapshotLocation`). */
  snapshot?: string;
}

/** What {@link checkAblationInputs} found, for the run to use as checked. */
export interface AblationInputs {
  seeds: number[];
  ledgerFile: string;
  /** The ledger as read (null: none yet). */
  ledger: LedgerFile | null;
  /** The snapshot to lay out before the run: the `--from` folder is gone and this holds its base. */
  restore: string | null;
  /** The `--from` folder is gone without a snapshot, and the ledger holds every (row, seed): the table comes from it. */
  ledgerOnly?: boolean;
}

/** The fingerprint a base's ledger is keyed to: its start student's and plain SFT student's weights, its mined states. */
export function baseFingerprint(base: Base): BaseFingerprint {
  return fingerprint({
    student: checkpointDigest(startStudent(base).dir),
    'plain-sft': checkpointDigest(base.paths.sft),
    'mined-states': criticalDigest(base.paths.critical),
  });
}

export const inRepo = (dir: string): boolean => {
  let d = resolve(dir);
  // The folder may not exist yet: ask git from the nearest one that does.
  while (!existsSync(d)) d = resolve(d, '..');
  return repoRoot(d) !== null;
};

/**
 * Reads and validates every input `ablate` will read, before anything is written: `--seeds`, the
 * ledger (its format, preset, seeds and, when the base exists, its base), the `--from` folder (a
 * finished demo of this world seed) or, when that folder is gone, the snapshot of its base, and
 * an existing `--out` folder's settings. A refusal is an input error naming the file or option.
 */
export function checkAblationInputs(
  settings: Pick<PipelineSettings, 'preset' | 'seed' | 'worldSeed' | 'out' | 'command'>,
  opts: AblationOptions,
): AblationInputs {
  const nSeeds = opts.seeds ?? DEFAULT_SEEDS;
  if (!Number.isInteger(nSeeds) || nSeeds < 1)
    throw new InputError(`--seeds must be a positive integer, not ${nSeeds}`, { field: '--seeds' });
  const seeds = Array.from({ length: nSeeds }, (_, k) => settings.seed + k);
  const preset = settings.preset.name;
  const ledgerFile =
    opts.ledger ??
    (opts.resultsDir
      ? join(opts.resultsDir, `ablation-${preset}.ledger.json`)
      : join(resolve(settings.out), 'ablation.ledger.json'));
  const ledger = AblationLedger.check(ledgerFile, {
    preset,
    seed: settings.seed,
    worldSeed: settings.worldSeed,
  });
  checkOutFolder(settings);
  let restore: string | null = null;
  if (opts.from && existsSync(join(opts.from, 'store.sqlite'))) {
    const base = openBaseFolder(opts.from, settings.worldSeed);
    try {
      const fp = baseFingerprint(base);
      if (ledger) AblationLedger.checkBase(ledgerFile, ledger, fp);
      // A snapshot already there is read again during the run (its phase): a damaged one is refused now.
      const where = snapshotLocation({
        snapshot: opts.snapshot,
        ledgerFile,
        preset,
        baseHash: fp.hash,
        inRepo,
      });
      if (hasSnapshot(where)) readSnapshot(where);
    } finally {
      base.from?.store.close();
    }
  } else if (opts.from) {
    const where = ledger
      ? snapshotLocation({ snapshot: opts.snapshot, ledgerFile, preset, baseHash: ledger.base.hash, inRepo })
      : opts.snapshot;
    if (!where || !hasSnapshot(where)) {
      const missing = ledger ? missingUnits(ledger, seeds) : null;
      if (missing?.length === 0) return { seeds, ledgerFile, ledger, restore: null, ledgerOnly: true };
      throw missingBase(opts.from, ledgerFile, ledger, where, missing);
    }
    const m = readSnapshot(where);
    if (ledger && m.base !== ledger.base.hash)
      throw new InputError(
        `the base snapshot holds base ${m.base.slice(0, 12)}, not the ledger's ${ledger.base.hash.slice(0, 12)} (${ledgerFile})`,
        { file: where },
      );
    restore = where;
  }
  return { seeds, ledgerFile, ledger, restore };
}

/** The refusal of a `--from` folder that is gone with no snapshot of its base: what is held, and what is needed. */
function missingBase(
  from: string,
  ledgerFile: string,
  ledger: LedgerFile | null,
  snapshot: string | undefined,
  missing: string[] | null,
): InputError {
  const held = ledger ? Object.keys(ledger.units).length : 0;
  const lacks = missing
    ? `it lacks ${missing.length} that the table needs (${missing.slice(0, 4).join(', ')}${missing.length > 4 ? ', ...' : ''})`
    : 'it was written before ledgers kept the summary of their base that a table from the ledger alone needs (its table is in the results beside it)';
  return new InputError(
    `--from ${from} is not a pipeline run folder (no store.sqlite), and ${snapshot ? `no base snapshot is at ${snapshot}` : 'no --snapshot was given'}. ` +
      (ledger
        ? `The ledger ${ledgerFile} holds ${held} finished (row, seed)s of base ${ledger.base.hash.slice(0, 12)}, but ${lacks}; `
        : `There is no ledger at ${ledgerFile}; `) +
      'to resume or extend the ablation, point --from at the demo folder the ledger was measured on, or give --snapshot the folder holding its snapshot ' +
      '(a rebuilt demo whose base hashes the same also serves)',
    { field: '--from' },
  );
}

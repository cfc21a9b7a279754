import { basename } from 'node:path';
import { currentVersions } from '../store/manifest.ts';
import type { RunStore } from '../store/run-store.ts';

/**
 * Records a stage's exact config and seed in the run manifest. A rerun of the same stage keeps the
 * first creation time; a different config for a resumed stage is recorded as a new entry so the
 * manifest shows what each part of the run was produced with.
 */
export function recordStage(
  store: RunStore,
  stage: string,
  config: Record<string, unknown>,
  seed: number,
): void {
  const now = new Date().toISOString();
  const prev = store.readManifest();
  const stages = { ...(prev?.stages ?? {}) } as Record<string, unknown>;
  const entry = { config, seed, at: now, argv: process.argv.slice(2) };
  const old = stages[stage] as { config?: unknown } | undefined;
  if (old && JSON.stringify(old.config) !== JSON.stringify(config)) stages[`${stage}@${now}`] = entry;
  else if (!old) stages[stage] = entry;
  store.writeManifest({
    name: prev?.name ?? basename(store.dir),
    command: prev?.command ?? `rmsweb ${process.argv.slice(2).join(' ')}`,
    config: prev?.config ?? config,
    seed: prev?.seed ?? seed,
    createdAt: prev?.createdAt ?? now,
    updatedAt: now,
    versions: currentVersions(),
    stages,
  });
}

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { describeZodIssues, InputError } from '../core/index.ts';
import { writeFileAtomic } from './atomic-write.ts';

export const RUN_MANIFEST_SCHEMA_VERSION = 1;

/** Tool versions a run was produced with, so results can be traced to code. */
export const RunVersions = z.object({
  rmsweb: z.string(),
  node: z.string(),
  chromium: z.string().optional(),
});
export type RunVersions = z.infer<typeof RunVersions>;

/**
 * `manifest.json` of a run folder: what produced the run (command, config, seed) and when.
 * `stages` holds per-stage bookkeeping (e.g. `collect`, `mine`) keyed by stage name.
 */
export const RunManifest = z.object({
  schemaVersion: z.literal(RUN_MANIFEST_SCHEMA_VERSION).default(RUN_MANIFEST_SCHEMA_VERSION),
  name: z.string().min(1),
  command: z.string(),
  config: z.record(z.string(), z.unknown()),
  seed: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  versions: RunVersions,
  stages: z.record(z.string(), z.unknown()).optional(),
});
export type RunManifest = z.infer<typeof RunManifest>;
export type RunManifestInput = z.input<typeof RunManifest>;

let cachedVersion: string | undefined;

/** The rmsweb package version, read once from package.json. */
export function rmswebVersion(): string {
  if (cachedVersion === undefined) {
    const require = createRequire(import.meta.url);
    cachedVersion = (require('../../package.json') as { version: string }).version;
  }
  return cachedVersion;
}

/** Versions of this process; callers that launched a browser add `chromium`. */
export function currentVersions(chromium?: string): RunVersions {
  return { rmsweb: rmswebVersion(), node: process.version, ...(chromium ? { chromium } : {}) };
}

/** Validates and writes a manifest atomically (temp file + rename), so a crash never leaves half a file. */
export function writeManifestFile(path: string, m: RunManifestInput): RunManifest {
  const r = RunManifest.safeParse(m);
  if (!r.success)
    throw new InputError(`invalid run manifest: ${describeZodIssues(r.error.issues)}`, { file: path });
  writeFileAtomic(path, `${JSON.stringify(r.data, null, 2)}\n`);
  return r.data;
}

/** Reads and validates a manifest; null when the file does not exist. */
export function readManifestFile(path: string): RunManifest | null {
  if (!existsSync(path)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new InputError(`run manifest is not valid JSON: ${(e as Error).message}`, { file: path }, e);
  }
  const r = RunManifest.safeParse(raw);
  if (!r.success)
    throw new InputError(`invalid run manifest: ${describeZodIssues(r.error.issues)}`, { file: path });
  return r.data;
}

export { writeFileAtomic } from './atomic-write.ts';
export { externalizeScreenshots } from './externalize.ts';
export { ImageStore, isImageHash } from './image-store.ts';
export {
  currentVersions,
  RUN_MANIFEST_SCHEMA_VERSION,
  RunManifest,
  type RunManifestInput,
  RunVersions,
  readManifestFile,
  rmswebVersion,
  writeManifestFile,
} from './manifest.ts';
export { findRunFolders } from './run-folders.ts';
export { type OpenOptions, RunStore } from './run-store.ts';
export { STORE_SCHEMA_VERSION } from './schema.ts';
export type { TrajectoryFilter, TrajectorySummary } from './trajectory-query.ts';

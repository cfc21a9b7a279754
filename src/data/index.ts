export {
  type ExportRlOptions,
  type ExportRlSummary,
  exportRl,
  parseRlFormat,
  RL_ABILITY,
  RL_FORMATS,
  type RlFormat,
} from './export-rl.ts';
export {
  type ExportSftOptions,
  type ExportSftSummary,
  exportSft,
  openRuns,
  parseSftFormat,
  readJsonl,
} from './export-sft.ts';
export {
  CRITICAL_FORMATS,
  type CriticalFormat,
  type ExportCriticalOptions,
  type ExportCriticalSummary,
  exportCritical,
  parseCriticalFormat,
  toWhoWhen,
  WHOWHEN_AGENT,
  type WhoWhenRecord,
  type WhoWhenTurn,
} from './export-whowhen.ts';
export { NoteScrubber, noteTexts, sentences, words } from './note-scrub.ts';
export { EXPORT_PROMPT_VERSION, IMAGE_SLOT, stepMessages } from './prompt.ts';
export { readCriticalStates } from './read-critical.ts';
export {
  actionOnlyHistory,
  type FlattenOptions,
  type FlattenResult,
  flattenTrajectory,
  reflectionNotes,
  type SftExample,
  scrubbedHistory,
  scrubObservation,
  stepPrompt,
  successfulTrajectories,
  visibleNotes,
} from './sft-flatten.ts';
export {
  LLAMAFACTORY_DATASET_NAME,
  llamafactoryDatasetInfo,
  SFT_FILE,
  SFT_FORMATS,
  SFT_RENDERERS,
  type SftFormat,
} from './sft-formats.ts';
export { type VerlExtraInfo, type VerlRow, verlParquetBuffer, writeVerlParquet } from './verl-parquet.ts';

export { type AlignedPair, alignRuns } from './align.ts';
export { type BranchJournal, openJournal } from './branch-journal.ts';
export {
  type BranchJob,
  type BranchResult,
  branchResultFromTrajectory,
  branchSpecOf,
  type LocalBranchRunner,
  type RemoteBranchRunner,
  runLocalBranch,
} from './branches.ts';
export {
  type ComparabilityWeights,
  comparability,
  comparabilityTotal,
  DEFAULT_COMPARABILITY_WEIGHTS,
  DEFAULT_MIN_COMPARABILITY,
  progressSimilarity,
  urlSimilarity,
  weightedJaccard,
} from './comparability.ts';
export {
  chooseDivergence,
  DEFAULT_LABEL_PRIORS,
  DEFAULT_RECENCY_DECAY,
  DEFAULT_RECOVERABLE_PRIOR,
  type Divergence,
  type DivergenceOptions,
  divergenceScore,
  findDivergences,
  successActionRecoverable,
} from './divergence.ts';
export {
  buildTaggerMessages,
  LlmTag,
  LlmTagger,
  type LlmTaggerOptions,
  TAGGER_SYSTEM_PROMPT,
} from './llm-tagger.ts';
export {
  DEFAULT_MAX_CANDIDATES,
  type MineOptions,
  type MineResult,
  mineCriticalStates,
  toCriticalState,
} from './mine.ts';
export { type PairingSummary, pairTrajectories, type RunKind, type RunPair, runKind } from './pairing.ts';
export {
  type BranchSpec,
  DEFAULT_REPLAY_THRESHOLD,
  divergedComparability,
  isReplayWait,
  MAX_REPLAY_WAITS,
  mapAction,
  onOrigin,
  REPLAY_DIVERGED,
  replayBranchAgent,
  replayComparability,
} from './replay.ts';
export { describeAction, rulesTagger, tagByRules } from './rules-tagger.ts';
export {
  elementKey,
  Interner,
  type StateFeatures,
  type TrajectoryFeatures,
  trajectoryFeatures,
} from './state-features.ts';
export { emptyMineStats, formatMineStats, type MineStats, type SiteMineStats } from './stats.ts';
export { LABEL_ORDER, TAXONOMY, type Tagger, type TagResult } from './taxonomy.ts';
export { type VerifiedTarget, type VerifyOptions, verifyTargets } from './verify.ts';
export {
  formatVerification,
  type MethodSummary,
  summarizeVerification,
  type VerificationSummary,
  type VerifyRow,
} from './verify-stats.ts';
export {
  baselineTargets,
  minerTargets,
  targetStateId,
  VERIFY_METHODS,
  type VerifyMethod,
  type VerifyTarget,
} from './verify-targets.ts';

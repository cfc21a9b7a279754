export { type AlignedPair, alignRuns } from './align.ts';
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
export {
  type BranchJob,
  type BranchJournal,
  type BranchResult,
  type BranchSpec,
  baselineTargets,
  branchResultFromTrajectory,
  branchSpecOf,
  DEFAULT_REPLAY_THRESHOLD,
  type LocalBranchRunner,
  mapAction,
  minerTargets,
  REPLAY_DIVERGED,
  type RemoteBranchRunner,
  replayBranchAgent,
  replayComparability,
  targetStateId,
  VERIFY_METHODS,
  type VerifiedTarget,
  type VerifyMethod,
  type VerifyOptions,
  type VerifyTarget,
  verifyTargets,
} from './verify.ts';
export {
  formatVerification,
  type MethodSummary,
  summarizeVerification,
  type VerificationSummary,
  type VerifyRow,
} from './verify-stats.ts';

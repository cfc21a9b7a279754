export { clipFraction, clippedSurrogate, meanOverParts, partLogProbRows } from './clipped-surrogate.ts';
export {
  criticalStateExample,
  labelRlExamples,
  loadCriticalStates,
  loadFullCorpus,
  parseCriticalStates,
  type RlExample,
  type RlLabelReport,
  trajectoryExamples,
} from './critical-data.ts';
export { DAPO_DEFAULTS, type DapoOptions, trainDapo } from './dapo.ts';
export { competenceGate, contrastGate, DEFAULT_COMPETENCE_TAU, DEFAULT_CONTRAST_DELTA } from './gates.ts';
export { groupAdvantages, groupStats } from './group-advantage.ts';
export { GRPO_DEFAULTS, type GrpoOptions, trainGrpo } from './grpo.ts';
export { k3, meanTeacherForcedKl, teacherForcedKl } from './kl.ts';
export { emptyMetrics, METRICS, type MetricName, type RlResult, type StepMetrics } from './metrics.ts';
export * from './reward/index.ts';
export { ExampleStream, type RolloutGroup, sampleGroups } from './rollouts.ts';
export {
  RL_ALGOS,
  type RlAlgo,
  RlCommonOptions,
  type RunRlOptions,
  type RunRlResult,
  rlDefaults,
  runRl,
} from './run-rl.ts';
export { SALVAGE_DS_DEFAULTS, type SalvageDsOptions, salvageDsLoss, trainSalvageDs } from './salvage-ds.ts';

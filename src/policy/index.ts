export {
  ARGUMENT_TYPES,
  ELEMENT_TYPES,
  POLICY_ACTION_TYPES,
  POLICY_KEYS,
  type PolicyActionType,
} from './action-space.ts';
export { initPolicyBackend, type PolicyBackend, preferredBackend } from './backend.ts';
export { CHECKPOINT_FORMAT, CheckpointConfig, readCheckpoint } from './checkpoint.ts';
export { actionsEqual, evaluateSteps, type StepAccuracy, type StepExample } from './evaluate.ts';
export {
  type ActionTargets,
  actionTargets,
  DEFAULT_FEATURIZER,
  FEATURIZER_VERSION,
  type FeaturizedState,
  type FeaturizerConfig,
  featurizeState,
  type StateStructure,
  stateStructure,
} from './featurizer.ts';
export { DEFAULT_MODEL, type ModelConfig } from './model.ts';
export { type PolicyActOptions, type PolicyActResult, policyAct } from './policy-act.ts';
export { loadSuccessfulTrajectories } from './run-data.ts';
export {
  type EpochMetrics,
  type SftDataReport,
  type SftExample,
  type SftOptions,
  type SftResult,
  sftExamples,
  splitByTask,
  trainSft,
} from './sft-trainer.ts';
export {
  createStudentPolicy,
  LocalStudentPolicy,
  loadStudentPolicy,
  NOT_REPRESENTABLE_LOGPROB,
  type StudentPolicyOptions,
} from './student-policy.ts';
export type { ActionSample, EncodedBatch, PolicyForward, PolicyState, StudentPolicy } from './types.ts';

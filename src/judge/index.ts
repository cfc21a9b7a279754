export * from './answer-match.ts';
export * from './benchmarks.ts';
export * from './evidence.ts';
export * from './rubric-verifier.ts';
export * from './verifier.ts';
export * from './webjudge.ts';
export * from './webvoyager-judge.ts';

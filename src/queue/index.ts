export * from './episode-queue.ts';
export * from './job-data.ts';
export * from './queue-worker.ts';
export * from './queued-collect.ts';
export * from './queued-eval.ts';
export * from './queued-pool.ts';
export * from './queued-verify.ts';
export * from './wire-result.ts';

import type { Command } from 'commander';

type Register = (program: Command) => void;

/** One CLI command: its name, the one-line summary root `--help` shows, and how to load it. */
export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<Register>;
}

// Commands load lazily: `rmsweb <cmd>` imports only that command's module (training pulls in
// tfjs, collection pulls in Playwright), so start-up stays fast. Each command lives in its own file.
export const COMMANDS: CommandEntry[] = [
  {
    name: 'observe',
    summary: "Print the agent's view of a page (elements, text view, screenshot)",
    load: async () => (await import('./observe.ts')).registerObserve,
  },
  {
    name: 'world',
    summary: 'Serve the offline web world, list its tasks, check a session',
    load: async () => (await import('./world.ts')).registerWorld,
  },
  {
    name: 'tasks',
    summary: 'List benchmark suites; synthesize tasks from raw queries',
    load: async () => (await import('./tasks.ts')).registerTasks,
  },
  {
    name: 'run-task',
    summary: 'Run one episode of one world task with an agent and print the verdict',
    load: async () => (await import('./run-task.ts')).registerRunTask,
  },
  {
    name: 'collect',
    summary: 'Teacher collection with reflection into a run folder',
    load: async () => (await import('./collect.ts')).registerCollect,
  },
  {
    name: 'stats',
    summary: 'Summarize a run: attempts, successes, reflection effect',
    load: async () => (await import('./stats.ts')).registerStats,
  },
  {
    name: 'export',
    summary: 'Export SFT data (TRL, ms-swift, LLaMA-Factory, OpenAI) or RL data (verl, JSONL)',
    // `export gguf` lives in its own file (it runs the Python trainer) and hangs off `export`
    load: async () => {
      const [{ registerExport }, { registerExportGguf }] = await Promise.all([
        import('./export.ts'),
        import('./export-gguf.ts'),
      ]);
      return (program) => {
        registerExport(program);
        registerExportGguf(program);
      };
    },
  },
  {
    name: 'mine',
    summary: 'Mine critical states from success/failure pairs',
    load: async () => (await import('./mine.ts')).registerMine,
  },
  {
    name: 'train',
    summary: 'Train the local student policy (SFT)',
    load: async () => (await import('./train.ts')).registerTrain,
  },
  {
    name: 'rollout',
    summary: 'Record rollouts of an agent on tasks (failures feed the miner)',
    load: async () => (await import('./rollout.ts')).registerRollout,
  },
  {
    name: 'rl',
    summary: 'Offline RL on critical states: Salvage-DS, GRPO or DAPO',
    load: async () => (await import('./rl.ts')).registerRl,
  },
  {
    name: 'ablate',
    summary: 'Run the ablation table on the offline world',
    load: async () => (await import('./ablate.ts')).registerAblate,
  },
  {
    name: 'eval',
    summary: 'Evaluate an agent on a suite: pass@1 over k runs',
    load: async () => (await import('./eval.ts')).registerEval,
  },
  {
    name: 'judge',
    summary: 'Calibrate LLM judges against the programmatic verifier',
    load: async () => (await import('./judge.ts')).registerJudge,
  },
  {
    name: 'demo',
    summary: 'The whole pipeline on the offline world, ending in a report',
    load: async () => (await import('./demo.ts')).registerDemo,
  },
  {
    name: 'view',
    summary: 'Open the run viewer (local web UI)',
    load: async () => (await import('./view.ts')).registerView,
  },
  {
    name: 'worker',
    summary: 'Run a queue worker for collection, rollouts and evaluation',
    load: async () => (await import('./worker.ts')).registerWorker,
  },
  {
    name: 'env',
    summary: 'Serve the offline world to RL engines over the OpenEnv protocol',
    load: async () => (await import('./env.ts')).registerEnv,
  },
  {
    name: 'serve-model',
    summary: 'Serve a local GGUF model behind the OpenAI chat API (127.0.0.1)',
    load: async () => (await import('./serve-model.ts')).registerServeModel,
  },
];

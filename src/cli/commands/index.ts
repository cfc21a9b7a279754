import type { Command } from 'commander';
import { registerNotLanded } from '../not-landed.ts';
import { registerObserve } from './observe.ts';
import { registerRunTask } from './run-task.ts';
import { registerCollect } from './collect.ts';
import { registerStats } from './stats.ts';
import { registerRollout } from './rollout.ts';
import { registerEval } from './eval.ts';
import { registerMine } from './mine.ts';
import { registerRl } from './rl.ts';
import { registerExport } from './export.ts';
import { registerTasks } from './tasks.ts';
import { registerTrain } from './train.ts';
import { registerView } from './view.ts';
import { registerWorker } from './worker.ts';
import { registerWorld } from './world.ts';

type Register = (program: Command) => void;

// Each command lives in its own file under commands/; a capability that has not landed yet is
// registered with registerNotLanded so `--help` always shows the whole surface.
export const COMMANDS: Register[] = [
  registerObserve,
  registerWorld,
  registerTasks,
  registerRunTask,
  registerCollect,
  registerStats,
  registerExport,
  registerMine,
  registerTrain,
  registerRollout,
  registerRl,
  (p) => registerNotLanded(p, 'ablate', 'Run the ablation table on the offline world', 'issue 8 (Salvage-DS)'),
  registerEval,
  (p) => registerNotLanded(p, 'demo', 'The whole pipeline on the offline world, ending in a report', 'issue 9 (evaluation)'),
  registerView,
  registerWorker,
];

import type { Command } from 'commander';
import { registerNotLanded } from '../not-landed.ts';

type Register = (program: Command) => void;

// Each command lives in its own file under commands/; a capability that has not landed yet is
// registered with registerNotLanded so `--help` always shows the whole surface.
export const COMMANDS: Register[] = [
  (p) => registerNotLanded(p, 'observe', 'Print the agent\'s view of a page (elements, text view, screenshot)', 'issue 2 (foundation)'),
  (p) => registerNotLanded(p, 'world', 'Serve the offline web world, list its tasks, check a session', 'issue 3 (offline world)'),
  (p) => registerNotLanded(p, 'tasks', 'Synthesize tasks from raw queries; list benchmark suites', 'issue 4 (models, agents)'),
  (p) => registerNotLanded(p, 'run-task', 'Run one episode of one task with an agent and print the verdict', 'issue 4 (models, agents)'),
  (p) => registerNotLanded(p, 'collect', 'Teacher collection with reflection into a run folder', 'issue 5 (collection)'),
  (p) => registerNotLanded(p, 'stats', 'Summarize a run: attempts, successes, reflection effect', 'issue 5 (collection)'),
  (p) => registerNotLanded(p, 'export', 'Export SFT data (TRL, ms-swift, LLaMA-Factory, OpenAI) or RL data (verl)', 'issue 5 (collection)'),
  (p) => registerNotLanded(p, 'mine', 'Mine critical states from success/failure pairs', 'issue 6 (mining)'),
  (p) => registerNotLanded(p, 'train', 'Train the local student policy (SFT)', 'issue 7 (student)'),
  (p) => registerNotLanded(p, 'rollout', 'Record rollouts of an agent on world tasks', 'issue 7 (student)'),
  (p) => registerNotLanded(p, 'rl', 'Offline RL: Salvage-DS, GRPO or DAPO on critical states', 'issue 8 (Salvage-DS)'),
  (p) => registerNotLanded(p, 'ablate', 'Run the ablation table on the offline world', 'issue 8 (Salvage-DS)'),
  (p) => registerNotLanded(p, 'eval', 'Evaluate an agent on a suite: pass@1 over k runs', 'issue 9 (evaluation)'),
  (p) => registerNotLanded(p, 'demo', 'The whole pipeline on the offline world, ending in a report', 'issue 9 (evaluation)'),
  (p) => registerNotLanded(p, 'view', 'Open the run viewer (local web UI)', 'issue 10 (viewer)'),
  (p) => registerNotLanded(p, 'worker', 'Run a queue worker for collection and evaluation', 'issue 11 (scale-out)'),
];

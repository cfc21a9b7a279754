// A queued-collection coordinator process for the restart test, without the CLI:
//   node --import tsx src/queue/testing/coordinator-main.ts --redis URL --out DIR --tasks N [--max-rounds R] [--max-steps S]
// Prints one JSON line per saved episode and a final summary line.
import { parseArgs } from 'node:util';
import { RulesReflector } from '../../collect/rules-reflector.ts';
import { RunStore } from '../../store/run-store.ts';
import { EpisodeQueue } from '../episode-queue.ts';
import { collectViaQueue } from '../queued-collect.ts';
import { sampleWorldTasks } from './tasks.ts';

const { values } = parseArgs({
  options: {
    redis: { type: 'string' },
    out: { type: 'string' },
    tasks: { type: 'string', default: '4' },
    'max-rounds': { type: 'string', default: '2' },
    'max-steps': { type: 'string', default: '8' },
    'queue-name': { type: 'string' },
  },
});
if (!values.redis || !values.out) throw new Error('--redis and --out are required');
const say = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);
const store = RunStore.open(values.out);
const queue = await EpisodeQueue.open({
  url: values.redis,
  store,
  queueName: values['queue-name'],
  backoffMs: 300,
  pollMs: 500,
});
const tasks = sampleWorldTasks(Number(values.tasks));
const r = await collectViaQueue({
  queue,
  store,
  tasks,
  agent: 'heuristic',
  runtime: { kind: 'world', worldSeed: 1 },
  reflector: new RulesReflector(),
  maxRounds: Number(values['max-rounds']),
  stopAfter: 1,
  maxSteps: Number(values['max-steps']),
  onEpisode: ({ task, trajectory }) => say({ type: 'saved', task: task.id, round: trajectory.round }),
  onError: ({ task, round, error }) => say({ type: 'error', task: task.id, round, error: error.message }),
});
say({ type: 'summary', ...r, reattached: queue.reattached });
await queue.close();
store.close();

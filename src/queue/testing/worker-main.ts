// A queue worker process for tests and benchmarks, without the CLI (which needs the whole runtime):
//   node --import tsx src/queue/testing/worker-main.ts --redis URL [--concurrency K] [--lock-ms MS] [--browser-ws URL] [--id NAME]
// Prints one JSON line per worker event on stdout; SIGTERM/SIGINT close it gracefully.
import { parseArgs } from 'node:util';
import { startQueueWorker } from '../queue-worker.ts';
import { makeOfflineAgent, openLocalWorldRuntime } from './local-runtime.ts';

const { values } = parseArgs({
  options: {
    redis: { type: 'string' },
    concurrency: { type: 'string', default: '2' },
    'lock-ms': { type: 'string', default: '30000' },
    'browser-ws': { type: 'string' },
    'queue-name': { type: 'string' },
    id: { type: 'string' },
  },
});
if (!values.redis) throw new Error('--redis is required');
const say = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);
const w = await startQueueWorker({
  url: values.redis,
  queueName: values['queue-name'],
  concurrency: Number(values.concurrency),
  lockMs: Number(values['lock-ms']),
  id: values.id,
  openRuntime: (spec) => openLocalWorldRuntime(spec, { browserWs: values['browser-ws'] }),
  makeAgent: makeOfflineAgent,
  onEvent: (e) => say(e.type === 'error' ? { ...e, error: e.error.message } : e),
});
say({ type: 'ready', id: w.id, pid: process.pid });
let closing = false;
const stop = async () => {
  if (closing) process.exit(130);
  closing = true;
  await w.close();
  say({ type: 'closed', ...w.stats() });
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

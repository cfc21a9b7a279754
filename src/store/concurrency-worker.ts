// Child process for run-store.test.ts: writes trajectories, images and records into one run
// folder at the same time as another process, to prove WAL + busy_timeout keep every write.
import { makeTrajectory } from './fixtures.ts';
import { RunStore } from './run-store.ts';

const [dir, prefix, countArg] = process.argv.slice(2);
const count = Number(countArg);
const store = RunStore.open(dir);
for (let i = 0; i < count; i++) {
  const shot = Buffer.from(`${prefix}-image-${i % 5}`).toString('base64');
  store.saveTrajectory(
    makeTrajectory({ id: `${prefix}_${i}`, taskId: `task_${i % 3}`, screenshotData: shot }),
    {
      episodeKey: `${prefix}:${i}`,
    },
  );
  store.putRecord('progress', `${prefix}_${i}`, { i });
  store.appendMetric(`loss/${prefix}`, i, { loss: 1 / (i + 1) });
}
store.close();
process.stdout.write('ok\n');

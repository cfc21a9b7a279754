// Child process of store-concurrency.faults.test.ts: writes into one run folder at the same time as
// another process, half of it under episode keys the other process writes too.
import { makeTrajectory } from '../../store/fixtures.ts';
import { RunStore } from '../../store/run-store.ts';

const [dir, prefix, countArg] = process.argv.slice(2);
const count = Number(countArg);
const store = RunStore.open(dir);
let wrote = 0;
for (let i = 0; i < count; i++) {
  const shot = Buffer.from(`shared-image-${i % 4}`).toString('base64');
  // Both processes race to save episode `shared:i`; exactly one may win.
  if (
    store.saveTrajectory(
      makeTrajectory({ id: `${prefix}_shared_${i}`, taskId: `shared_${i}`, screenshotData: shot }),
      { episodeKey: `shared:${i}` },
    )
  )
    wrote++;
  store.saveTrajectory(makeTrajectory({ id: `${prefix}_own_${i}`, taskId: `${prefix}_${i}` }), {
    episodeKey: `${prefix}:${i}`,
  });
  store.putRecord('progress', `${prefix}_${i}`, { i });
  store.appendMetric('shared/loss', i, { loss: 1 / (i + 1) });
}
store.close();
process.stdout.write(`${JSON.stringify({ ok: true, wrote })}\n`);

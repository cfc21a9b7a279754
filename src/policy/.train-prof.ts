import * as tf from '@tensorflow/tfjs';
import { createStudentPolicy } from './student-policy.ts';
import { initPolicyBackend } from './backend.ts';
import { syntheticTrajectories } from './testing/synthetic.ts';
const be = (process.argv[2] ?? 'wasm') as 'wasm' | 'cpu';
await initPolicyBackend(be);
const trajs = syntheticTrajectories(40, 1, 120);
const ex = trajs.flatMap((t) => t.steps.map((s, i) => ({ state: { task: t.task, observation: s.observation, history: t.steps.slice(0, i).map((x) => x.action) }, action: s.action })));
const p = await createStudentPolicy({ model: { seed: 3 } });
const opt = tf.train.adam(1e-3);
const B = 32;
for (let rep = 0; rep < 4; rep++) {
  const sl = ex.slice((rep * B) % 64, (rep * B) % 64 + B);
  let t0 = performance.now();
  const batch = p.encode(sl.map((x) => x.state));
  const tEnc = performance.now() - t0;
  t0 = performance.now();
  const loss = opt.minimize(() => {
    const f = p.forward(batch, sl.map((x) => x.action));
    return tf.neg(tf.mean(tf.sum(tf.mul(f.partLogProbs, f.partMask), 1))) as tf.Scalar;
  }, true, p.trainableVariables());
  const l = loss!.dataSync()[0];
  loss!.dispose();
  batch.dispose();
  console.log(be, 'encode', tEnc.toFixed(0), 'step', (performance.now() - t0).toFixed(0), 'loss', l.toFixed(3), 'E', batch.E, 'A', batch.A, 'tensors', tf.memory().numTensors);
}

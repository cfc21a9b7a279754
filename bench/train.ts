/**
 * The local student's training throughput (examples/s: featurization, forward, backward and the
 * Adam update) and inference latency per step (ms: featurize one state and decode it greedily, what
 * PolicyAgent does each step), on the wasm and the cpu tfjs backends in one run, with ratios.
 * Each rate is also given per second of this process's CPU time, which stays meaningful on a
 * machine shared with other work.
 *
 *   npm run bench:train                          (synthetic pages with ~110 elements each)
 *   npm run bench:train -- --run runs/teacher    (the verified successes of a run folder)
 *   npm run bench:train -- --examples 640 --batch 32
 */

import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { JsAdam } from '../src/policy/adam.ts';
import { initPolicyBackend, type PolicyBackend } from '../src/policy/backend.ts';
import { loadSuccessfulTrajectories } from '../src/policy/run-data.ts';
import { type SftExample, sftExamples } from '../src/policy/sft-trainer.ts';
import { LocalStudentPolicy } from '../src/policy/student-policy.ts';
import { syntheticTrajectories } from '../src/policy/testing/synthetic.ts';

const { values } = parseArgs({
  options: {
    run: { type: 'string', multiple: true },
    examples: { type: 'string', default: '192' },
    batch: { type: 'string', default: '32' },
    latency: { type: 'string', default: '30' },
  },
});
const nExamples = Number(values.examples);
const batchSize = Number(values.batch);
const nLatency = Number(values.latency);

const examples: SftExample[] = values.run?.length
  ? sftExamples(loadSuccessfulTrajectories(values.run))
  : sftExamples(syntheticTrajectories(Math.ceil(nExamples / 2), 1, 110));
const train = examples.slice(0, nExamples);
const probe = examples.slice(0, nLatency);
const meanElements =
  train.reduce((a, e) => a + e.state.observation.elements.length, 0) / Math.max(1, train.length);

interface Row {
  backend: PolicyBackend;
  examplesPerSecond: number;
  /** Examples per second of this process's own CPU time: robust to other processes on the machine. */
  examplesPerCpuSecond: number;
  latencyMs: number;
  latencyCpuMs: number;
  p95Ms: number;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function trainStep(policy: LocalStudentPolicy, adam: JsAdam, chunk: SftExample[]): void {
  const batch = policy.encode(chunk.map((e) => e.state));
  const { value, grads } = tf.variableGrads(() => {
    const f = policy.forward(
      batch,
      chunk.map((e) => e.action),
    );
    return tf.div(tf.neg(tf.sum(tf.mul(f.partLogProbs, f.partMask))), chunk.length) as tf.Scalar;
  }, policy.trainableVariables());
  adam.step(grads, 5);
  tf.dispose([value, ...Object.values(grads)]);
  batch.dispose();
}

async function measure(backend: PolicyBackend): Promise<Row> {
  const got = await initPolicyBackend(backend);
  if (got !== backend) throw new Error(`backend ${backend} is not available (got ${got})`);
  const policy = new LocalStudentPolicy({ model: { seed: 0 } });
  const adam = new JsAdam(policy.trainableVariables(), 0.002);
  // Warm-up: JIT, kernel setup and first allocations are not what a long training run sees.
  trainStep(policy, adam, train.slice(0, batchSize));
  const t0 = performance.now();
  const c0 = cpuMs();
  let n = 0;
  for (let i = 0; i < train.length; i += batchSize) {
    const chunk = train.slice(i, i + batchSize);
    trainStep(policy, adam, chunk);
    n += chunk.length;
  }
  const examplesPerSecond = n / ((performance.now() - t0) / 1000);
  const examplesPerCpuSecond = n / ((cpuMs() - c0) / 1000);
  const times: number[] = [];
  let latencyCpu = 0;
  for (const [i, ex] of probe.entries()) {
    const t = performance.now();
    const c = cpuMs();
    const b = policy.encode([ex.state]);
    policy.greedy(b);
    b.dispose();
    if (i > 0) {
      times.push(performance.now() - t);
      latencyCpu += cpuMs() - c;
    }
  }
  times.sort((a, b) => a - b);
  policy.dispose();
  return {
    backend,
    examplesPerSecond,
    examplesPerCpuSecond,
    latencyMs: times.reduce((a, b) => a + b, 0) / Math.max(1, times.length),
    latencyCpuMs: latencyCpu / Math.max(1, times.length),
    p95Ms: times[Math.floor(0.95 * (times.length - 1))] ?? Number.NaN,
  };
}

console.log(
  `student bench: ${train.length} training examples (batch ${batchSize}), ${probe.length} latency probes, ` +
    `${meanElements.toFixed(0)} elements per observation on average (${values.run?.length ? values.run.join(', ') : 'synthetic pages'})`,
);
const rows: Row[] = [];
for (const backend of ['wasm', 'cpu'] as const) {
  const r = await measure(backend);
  rows.push(r);
  console.log(
    `${backend.padEnd(5)} train ${r.examplesPerSecond.toFixed(1).padStart(7)} examples/s (${r.examplesPerCpuSecond.toFixed(1)} per CPU-second)   ` +
      `inference ${r.latencyMs.toFixed(1).padStart(7)} ms/step (p95 ${r.p95Ms.toFixed(1)} ms; ${r.latencyCpuMs.toFixed(1)} CPU-ms)`,
  );
}
const [wasm, cpu] = rows;
console.log(
  `wasm vs cpu: training ${(wasm.examplesPerSecond / cpu.examplesPerSecond).toFixed(2)}x faster ` +
    `(${(wasm.examplesPerCpuSecond / cpu.examplesPerCpuSecond).toFixed(2)}x per CPU-second), ` +
    `inference ${(cpu.latencyMs / wasm.latencyMs).toFixed(2)}x faster (${(cpu.latencyCpuMs / wasm.latencyCpuMs).toFixed(2)}x in CPU time)`,
);
console.log('(wall-clock rates depend on what else runs on the machine; the CPU-time rates much less)');

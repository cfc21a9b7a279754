import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

/** Which tfjs backend the student runs on. */
export type PolicyBackend = 'wasm' | 'cpu';

let ready: Promise<PolicyBackend> | null = null;
let requested: PolicyBackend | null = null;
let segmentSumRegistered = false;

/**
 * Selects the tfjs backend once per process: wasm (the default; its binaries ship in the npm package)
 * with a fallback to the pure-JS cpu backend and a log line saying why. Safe to call many times; a
 * later call with a different preference switches backends (bench/train.ts compares them).
 */
export function initPolicyBackend(prefer: PolicyBackend = preferredBackend()): Promise<PolicyBackend> {
  if (ready && requested === prefer) return ready;
  requested = prefer;
  ready = select(prefer);
  return ready;
}

/** `RMSWEB_TF_BACKEND=cpu` forces the cpu backend; anything else means wasm. */
export function preferredBackend(): PolicyBackend {
  return process.env.RMSWEB_TF_BACKEND === 'cpu' ? 'cpu' : 'wasm';
}

async function select(prefer: PolicyBackend): Promise<PolicyBackend> {
  // Production mode: skips debug-only checks and the "install tfjs-node" banner (we run without it on purpose).
  tf.enableProdMode();
  if (prefer === 'wasm') {
    try {
      registerWasmSegmentSum();
      const require = createRequire(import.meta.url);
      const pkg = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json'));
      setWasmPaths(join(pkg, 'dist') + '/');
      const before = listenerSnapshot();
      const ok = await tf.setBackend('wasm');
      if (ok) await tf.ready();
      removeNewListeners(before);
      if (ok) return 'wasm';
      process.stderr.write('rmsweb policy: the tfjs wasm backend did not initialize; falling back to cpu\n');
    } catch (e) {
      process.stderr.write(
        `rmsweb policy: the tfjs wasm backend failed (${(e as Error).message}); falling back to cpu\n`,
      );
    }
  }
  await tf.setBackend('cpu');
  await tf.ready();
  return 'cpu';
}

type ProcessEvent = 'uncaughtException' | 'unhandledRejection';
const EVENTS: ProcessEvent[] = ['uncaughtException', 'unhandledRejection'];

type Listener = (...args: unknown[]) => void;

function listenersOf(e: ProcessEvent): Listener[] {
  return (process.listeners as (event: string) => Listener[])(e);
}

function listenerSnapshot(): Map<ProcessEvent, Set<Listener>> {
  return new Map(EVENTS.map((e) => [e, new Set(listenersOf(e))]));
}

/**
 * The emscripten glue of the wasm backend installs process handlers that rethrow every uncaught
 * error from inside its minified bundle, so a crash anywhere prints the whole bundle instead of the
 * error. Node's own handling is what we want: drop the handlers it added.
 */
function removeNewListeners(before: Map<ProcessEvent, Set<Listener>>): void {
  for (const e of EVENTS) {
    for (const l of listenersOf(e)) if (!before.get(e)?.has(l)) process.removeListener(e, l);
  }
}

/**
 * tfjs-backend-wasm 4.22 has no UnsortedSegmentSum kernel, and that kernel is the gradient of
 * `gather`: without it no embedding table can be trained on wasm. This registers a plain-JS one.
 */
export function registerWasmSegmentSum(): void {
  if (segmentSumRegistered) return;
  segmentSumRegistered = true;
  if (tf.getKernel('UnsortedSegmentSum', 'wasm')) return;
  tf.registerKernel({
    kernelName: 'UnsortedSegmentSum',
    backendName: 'wasm',
    kernelFunc: ({ inputs, attrs, backend }) => {
      const { x, segmentIds } = inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
      const numSegments = (attrs as { numSegments: number }).numSegments;
      const wasm = backend as unknown as {
        readSync(id: tf.DataId): ArrayLike<number>;
        makeOutput(
          shape: number[],
          dtype: tf.DataType,
          offset?: number,
          values?: ArrayLike<number>,
        ): tf.TensorInfo;
      };
      const xs = wasm.readSync(x.dataId);
      const ids = wasm.readSync(segmentIds.dataId);
      const inner = ids.length === 0 ? 0 : xs.length / ids.length;
      const outShape = [numSegments, ...x.shape.slice(segmentIds.shape.length)];
      const out =
        x.dtype === 'int32' ? new Int32Array(numSegments * inner) : new Float32Array(numSegments * inner);
      for (let i = 0; i < ids.length; i++) {
        const s = ids[i];
        if (s < 0 || s >= numSegments) continue;
        const src = i * inner;
        const dst = s * inner;
        for (let k = 0; k < inner; k++) out[dst + k] += xs[src + k];
      }
      return wasm.makeOutput(outShape, x.dtype, undefined, out);
    },
  });
}

import { z } from 'zod';
import { describeZodIssues, RmswebError } from '../core/errors.ts';
import { sha256 } from '../core/ids.ts';
import { Trajectory } from '../core/trajectory.ts';

/** Default bound on one job result (trajectory JSON plus screenshots): 8 MiB. */
export const DEFAULT_MAX_RESULT_BYTES = 8 * 1024 * 1024;

/**
 * What a worker returns for an episode. Screenshots travel once each in `images` (base64 by
 * content hash; consecutive observations of an unchanged page share one), and the trajectory
 * keeps only their references, so results stay small and need no shared disk.
 */
export const WireResult = z.object({
  v: z.literal(1),
  trajectory: z.unknown(),
  images: z.record(z.string(), z.string()),
  /** Screenshots left out to keep the result under the bound (the oldest go first). */
  droppedImages: z.number().int().min(0),
  worker: z.string(),
});
export type WireResult = z.infer<typeof WireResult>;

type Shot = { hash: string; data?: string } & Record<string, unknown>;

function isShot(v: unknown): v is Shot {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.hash === 'string' && ('width' in o || 'mime' in o);
}

/** Visits every screenshot reference in a value, in document order. */
function eachShot(v: unknown, fn: (shot: Shot) => void): void {
  if (Array.isArray(v)) {
    for (const x of v) eachShot(x, fn);
    return;
  }
  if (typeof v !== 'object' || v === null) return;
  if (isShot(v)) {
    fn(v);
    return;
  }
  for (const x of Object.values(v)) eachShot(x, fn);
}

/**
 * Packs a finished trajectory for the job's return value. When the whole exceeds `maxBytes`,
 * screenshots are left out oldest first (the last one, which judges read, goes last); the count
 * is reported so the coordinator can say so.
 */
export function packTrajectory(t: Trajectory, opts: { maxBytes?: number; worker: string }): WireResult {
  const copy = structuredClone(t);
  const images: Record<string, string> = {};
  const order: string[] = [];
  eachShot(copy, (s) => {
    if (typeof s.data === 'string') {
      const b64 = s.data.replace(/^data:[^;,]+;base64,/, '');
      // The content address is the source of truth (as in the run store), whatever hash the producer set.
      const hash = sha256(Buffer.from(b64, 'base64'));
      if (!(hash in images)) {
        images[hash] = b64;
        order.push(hash);
      }
      s.hash = hash;
      delete s.data;
    }
  });
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_RESULT_BYTES;
  let size = JSON.stringify(copy).length + order.reduce((a, h) => a + images[h].length + h.length + 6, 0);
  let dropped = 0;
  for (const h of order) {
    if (size <= maxBytes) break;
    size -= images[h].length + h.length + 6;
    delete images[h];
    dropped++;
  }
  return { v: 1, trajectory: copy, images, droppedImages: dropped, worker: opts.worker };
}

/**
 * Reads a job's return value back into a trajectory with its screenshot payloads restored, ready
 * for `RunStore.saveTrajectory` (which moves them into the image store). Invalid results throw.
 */
export function unpackTrajectory(
  raw: unknown,
  jobId: string,
): { trajectory: Trajectory; droppedImages: number; worker: string } {
  const w = WireResult.safeParse(raw);
  if (!w.success)
    throw new RmswebError(`job ${jobId} returned a malformed result: ${describeZodIssues(w.error.issues)}`, {
      code: 'QUEUE_RESULT',
    });
  const body = structuredClone(w.data.trajectory);
  eachShot(body, (s) => {
    const data = w.data.images[s.hash];
    if (data !== undefined) s.data = data;
  });
  const t = Trajectory.safeParse(body);
  if (!t.success)
    throw new RmswebError(
      `job ${jobId} returned an invalid trajectory: ${describeZodIssues(t.error.issues)}`,
      { code: 'QUEUE_RESULT' },
    );
  return { trajectory: t.data, droppedImages: w.data.droppedImages, worker: w.data.worker };
}

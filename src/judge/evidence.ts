import { formatAction, type ScreenshotRef, type Trajectory } from '../core/index.ts';
import { type ChatContentPart, imagePart } from '../models/index.ts';

/** A screenshot taken at one step. */
export interface StepShot {
  stepIndex: number;
  url: string;
  ref: ScreenshotRef;
}

/** Screenshots of a trajectory in order, with runs of the same image (same hash) collapsed to one. */
export function screenshotsOf(trajectory: Trajectory): StepShot[] {
  const out: StepShot[] = [];
  for (const step of trajectory.steps) {
    const ref = step.observation.screenshot;
    if (!ref) continue;
    if (out.length && out[out.length - 1].ref.hash === ref.hash) continue;
    out.push({ stepIndex: step.index, url: step.observation.url, ref });
  }
  return out;
}

/**
 * Turns screenshots into image parts, loading bytes by hash unless the ref still carries its
 * transient base64 data. Missing images are skipped and counted.
 */
export async function loadShots(
  shots: StepShot[],
  loadImage: (hash: string) => Promise<Buffer | null>,
): Promise<{ parts: Array<{ shot: StepShot; part: ChatContentPart }>; missing: number }> {
  const parts: Array<{ shot: StepShot; part: ChatContentPart }> = [];
  let missing = 0;
  for (const shot of shots) {
    if (shot.ref.data) {
      parts.push({ shot, part: imagePart(shot.ref.data, shot.ref.mime) });
      continue;
    }
    const bytes = await loadImage(shot.ref.hash);
    if (bytes) parts.push({ shot, part: imagePart(bytes, shot.ref.mime) });
    else missing++;
  }
  return { parts, missing };
}

/**
 * The agent's actions as numbered lines, with the page each was taken on and any error. With
 * `withholdAnswer`, done actions keep their success flag but not their text: WebJudge judges the
 * process and the pages, not what the agent claims.
 */
export function actionHistory(trajectory: Trajectory, opts: { withholdAnswer?: boolean } = {}): string {
  if (!trajectory.steps.length) return '(the agent took no actions)';
  return trajectory.steps
    .map((s) => {
      const act =
        opts.withholdAnswer && s.action.type === 'done'
          ? `done(success=${s.action.success}, answer withheld)`
          : formatAction(s.action);
      const err = s.result.error ? ` -> error: ${s.result.error}` : '';
      return `${s.index + 1}. ${act} on ${s.observation.url}${err}`;
    })
    .join('\n');
}

/** Runs `fn` over items with at most `limit` in flight, keeping the input order in the result. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

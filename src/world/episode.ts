import { randomBytes } from 'node:crypto';
import type { Observation } from '../core/observation.ts';
import type { Task } from '../core/task.ts';
import { CONTROL_HEADER, SESSION_COOKIE } from './server.ts';
import { resolveWorldUrl } from './tasks.ts';

/** The part of BrowserEnv a world episode needs (kept minimal so world/ does not depend on its details). */
export interface ResettableEnv {
  reset(
    task: { startUrl: string },
    opts?: { cookies?: Array<{ name: string; value: string; url: string }> },
  ): Promise<Observation>;
}

/**
 * Starts a world task in a browser env under a fresh world session: the session cookie binds the
 * browser context to server-side state, so the verifier can later read that session's final state.
 * A non-zero `perturb` seed first registers the session with that perturbation through the
 * harness-only reset endpoint, so its pages vary as a real site's do from visit to visit.
 */
export async function startWorldEpisode(
  env: ResettableEnv,
  task: Task,
  worldOrigin: string,
  sessionId = `sess_${randomBytes(8).toString('hex')}`,
  opts: { perturb?: number } = {},
): Promise<{ sessionId: string; observation: Observation; startUrl: string; perturb: number }> {
  const perturb = opts.perturb ?? 0;
  if (perturb) await resetWorldSession(worldOrigin, sessionId, perturb);
  const startUrl = resolveWorldUrl(task.startUrl, worldOrigin);
  const observation = await env.reset(
    { startUrl },
    { cookies: [{ name: SESSION_COOKIE, value: sessionId, url: worldOrigin }] },
  );
  return { sessionId, observation, startUrl, perturb };
}

/** Resets a world session over the control endpoint, with a perturbation seed (0: none). */
export async function resetWorldSession(worldOrigin: string, sessionId: string, perturb = 0): Promise<void> {
  const url = `${worldOrigin}/__world/reset?session=${encodeURIComponent(sessionId)}&perturb=${perturb}`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { [CONTROL_HEADER]: '1' },
    signal: AbortSignal.timeout(15_000),
  });
  if (!res.ok) throw new Error(`world reset at ${worldOrigin} answered ${res.status}: ${await res.text()}`);
}

import { randomBytes } from 'node:crypto';
import type { Observation } from '../core/observation.ts';
import type { Task } from '../core/task.ts';
import { SESSION_COOKIE } from './server.ts';
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
 */
export async function startWorldEpisode(
  env: ResettableEnv,
  task: Task,
  worldOrigin: string,
  sessionId = `sess_${randomBytes(8).toString('hex')}`,
): Promise<{ sessionId: string; observation: Observation; startUrl: string }> {
  const startUrl = resolveWorldUrl(task.startUrl, worldOrigin);
  const observation = await env.reset(
    { startUrl },
    { cookies: [{ name: SESSION_COOKIE, value: sessionId, url: worldOrigin }] },
  );
  return { sessionId, observation, startUrl };
}

import { RmswebError } from '../core/errors.ts';
import type { Trajectory } from '../core/trajectory.ts';
import { Verdict } from '../core/trajectory.ts';

/**
 * The offline world's programmatic verifier, reached over the world server's control endpoint so it
 * works whether the world runs in this process or in another (`rmsweb world serve`). It reads the
 * session's final state and the agent's final answer; the world computes the named conditions.
 */
export function worldVerifier(origin: string): (trajectory: Trajectory) => Promise<Verdict> {
  return async (trajectory) => {
    if (!trajectory.sessionId)
      throw new RmswebError(`trajectory ${trajectory.id} has no world session`, { code: 'VERIFY' });
    const res = await fetch(`${origin}/__world/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-rmsweb-control': '1' },
      body: JSON.stringify({
        task: trajectory.task,
        session: trajectory.sessionId,
        answer: trajectory.finalAnswer,
      }),
      signal: AbortSignal.timeout(15_000),
    });
    if (!res.ok) {
      throw new RmswebError(`world verifier at ${origin} answered ${res.status}: ${await res.text()}`, {
        code: 'VERIFY',
        isRetryable: res.status >= 500,
      });
    }
    return Verdict.parse(await res.json());
  };
}

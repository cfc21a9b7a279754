import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import type { EpisodeEnv } from '../agent/episode.ts';
import { InputError } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import type { Observation } from '../core/observation.ts';
import type { Task } from '../core/task.ts';
import type { Trajectory, Verdict } from '../core/trajectory.ts';

/**
 * The MiniWoB++ suite over a user's copy of MiniWoB++'s `html` folder (the project does not ship
 * it). Pages are served on loopback; an episode is driven through the page globals MiniWoB
 * defines: wait for `WOB_TASK_READY`, call `core.startEpisodeReal()`, read the instruction from
 * `core.getUtterance()`, and after each action read `WOB_DONE_GLOBAL` and `WOB_RAW_REWARD_GLOBAL`.
 * Success is a raw reward of 1.
 */

/** The environments in a MiniWoB html folder (`<dir>/miniwob/<env>.html`). */
export function listMiniwobEnvs(dir: string): string[] {
  const sub = join(dir, 'miniwob');
  if (!existsSync(sub) || !statSync(sub).isDirectory()) {
    throw new InputError(
      `no miniwob/ folder in ${dir}: --miniwob-dir must point at MiniWoB++'s html folder (the one holding core/ and miniwob/)`,
      { field: '--miniwob-dir' },
    );
  }
  return readdirSync(sub)
    .filter((f) => f.endsWith('.html'))
    .map((f) => f.slice(0, -'.html'.length))
    .sort();
}

/** One Task per environment; the objective is the utterance, which the page draws at episode start. */
export function miniwobTasks(origin: string, envs: readonly string[]): Task[] {
  return envs.map((env) => ({
    schemaVersion: 1 as const,
    id: `miniwob:${env}`,
    suite: 'miniwob' as const,
    site: env,
    objective: `(MiniWoB ${env}: the instruction is drawn when the episode starts)`,
    startUrl: `${origin}/miniwob/${env}.html`,
    verifier: { kind: 'miniwob' as const, env },
  }));
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/** Serves the MiniWoB html folder on 127.0.0.1 (free port). */
export async function serveMiniwob(dir: string): Promise<{ origin: string; close(): Promise<void> }> {
  const root = resolve(dir);
  const server: Server = createServer((req, res) => {
    let path: string;
    try {
      path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    } catch {
      // A malformed % escape (or URL) is the client's error; thrown here it would end the process.
      res.writeHead(400).end();
      return;
    }
    const file = join(root, path);
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The env surface a MiniWoB episode needs: BrowserEnv's page access plus observe. */
interface PageEnv extends EpisodeEnv {
  page: {
    waitForFunction(fn: string, arg?: unknown, opts?: { timeout?: number }): Promise<unknown>;
    evaluate<T>(fn: string): Promise<T>;
  };
  observe(): Promise<Observation>;
}

/**
 * Hooks for runEpisode: `start` opens the page and starts an episode (returning its utterance as
 * the objective), `isTerminal` polls the page's done flag and records the raw reward, `verify`
 * turns the reward into a verdict.
 */
export function miniwobHooks(opts: { readyTimeoutMs?: number } = {}) {
  const rewards = new Map<string, number>();
  return {
    async start(
      env: EpisodeEnv,
      task: Task,
    ): Promise<{ observation: Observation; sessionId: string; objective: string }> {
      const penv = env as PageEnv;
      await env.reset({ startUrl: task.startUrl });
      await penv.page.waitForFunction('window.WOB_TASK_READY === true', undefined, {
        timeout: opts.readyTimeoutMs ?? 10_000,
      });
      await penv.page.evaluate('core.startEpisodeReal()');
      const utterance = await penv.page.evaluate<unknown>('core.getUtterance()');
      const text =
        typeof utterance === 'string'
          ? utterance
          : String((utterance as { utterance?: string })?.utterance ?? '');
      const sessionId = newId('wob');
      rewards.set(sessionId, 0);
      return { observation: await penv.observe(), sessionId, objective: text };
    },
    async isTerminal(env: EpisodeEnv, sessionId: string | undefined): Promise<boolean> {
      const penv = env as PageEnv;
      const r = await penv.page.evaluate<{ done: boolean; reward: number }>(
        '({ done: !!window.WOB_DONE_GLOBAL, reward: Number(window.WOB_RAW_REWARD_GLOBAL || 0) })',
      );
      if (sessionId) rewards.set(sessionId, r.reward);
      return r.done;
    },
    async verify(t: Trajectory): Promise<Verdict> {
      const reward = t.sessionId ? (rewards.get(t.sessionId) ?? 0) : 0;
      if (t.sessionId) rewards.delete(t.sessionId);
      return {
        success: reward >= 1,
        score: Math.max(0, Math.min(1, reward)),
        reason: `raw reward ${reward}`,
        verifierId: 'miniwob-raw-reward',
        failedConditions: reward >= 1 ? [] : ['raw_reward<1'],
      };
    },
  };
}

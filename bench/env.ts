/**
 * `rmsweb env serve` measured, in one run:
 * 1. Throughput: steps/s of episodes played over the OpenEnv protocol (WebSocket sessions, the
 *    client echoing the heuristic teacher's action the server attaches) against the same episodes run
 *    in process by the collection's episode loop (runEpisode + the heuristic teacher), at the same
 *    number of sessions and workers, on the same tasks. Target: protocol >= 0.8x in-process.
 * 2. With `--critical FILE` (a mined critical.jsonl; its runs beside it, as the demo lays them out):
 *    the share of its states whose critical-state reset replays the success prefix and matches the
 *    recorded state. Target: >= 95%.
 * 3. With `--soak MINUTES`: N sessions playing episodes for that long; counts episodes, infrastructure
 *    errors and protocol errors, and checks that every session's context is freed at the end.
 *
 *   npx tsx bench/env.ts                                   (4 sessions, 24 episodes per setting)
 *   npx tsx bench/env.ts --sessions 4 --episodes 40 --critical /tmp/env-demo-tiny/mined/critical.jsonl
 *   npx tsx bench/env.ts --sessions 8 --episodes 0 --soak 5
 */
import { parseArgs } from 'node:util';
import { runEpisode } from '../src/agent/episode.ts';
import { HeuristicAgent } from '../src/agent/heuristic/heuristic-agent.ts';
import { BrowserHost } from '../src/browser/index.ts';
import type { Task } from '../src/core/task.ts';
import { EnvRuntime, EnvServer, loadCriticalStore, type StepResult, siblingRuns } from '../src/env/index.ts';
import { connectWs, type WsConnection } from '../src/env/websocket.ts';
import { startWorldEpisode } from '../src/world/episode.ts';

const { values: o } = parseArgs({
  options: {
    sessions: { type: 'string', default: '4' },
    episodes: { type: 'string', default: '24' },
    'max-steps': { type: 'string', default: '15' },
    critical: { type: 'string' },
    soak: { type: 'string' },
  },
});
const sessions = Number(o.sessions);
const episodes = Number(o.episodes);
const maxSteps = Number(o['max-steps']);

/** One WebSocket session, request by request. */
async function session(url: string): Promise<{ send: (m: object) => Promise<any>; ws: WsConnection }> {
  const ws = await connectWs(`${url.replace(/^http/, 'ws')}/ws`);
  const waiting: Array<(m: string) => void> = [];
  ws.on('message', (m) => waiting.shift()?.(m));
  return {
    ws,
    send: (m) =>
      new Promise((resolve) => {
        waiting.push((x) => resolve(JSON.parse(x)));
        ws.send(JSON.stringify(m));
      }),
  };
}

/** A fixed task sample spread over the sites: every k-th train task. */
function sample(tasks: Task[], n: number): Task[] {
  const train = tasks.filter((t) => t.split === 'train');
  const step = Math.max(1, Math.floor(train.length / Math.max(1, n)));
  return Array.from({ length: n }, (_, k) => train[(k * step) % train.length]);
}

/** Runs `jobs` over `workers` parallel loops; returns seconds. */
async function pool<T>(
  jobs: T[],
  workers: number,
  run: (job: T, w: number) => Promise<void>,
): Promise<number> {
  const queue = [...jobs];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let j = queue.shift(); j !== undefined; j = queue.shift()) await run(j, w);
    }),
  );
  return (performance.now() - t0) / 1000;
}

const rows: string[] = [];

if (episodes > 0) {
  // --- in process: the collection's episode loop, one browser context per worker -------------
  const rt = new EnvRuntime();
  const world = await rt.world();
  const tasks = sample(world.tasks, episodes);
  const host = await BrowserHost.launch();
  const envs = await Promise.all(
    Array.from({ length: sessions }, () =>
      host.newEnv({ allowlist: [world.origin], screenshot: { enabled: false } }),
    ),
  );
  let inSteps = 0;
  let inSolved = 0;
  const inSeconds = await pool(tasks, sessions, async (task, w) => {
    const t = await runEpisode({
      agent: new HeuristicAgent(),
      env: envs[w],
      task,
      maxSteps,
      start: (e, tk, ctx) => startWorldEpisode(e, tk, world.origin, undefined, { perturb: ctx?.perturb }),
      verify: world.verify,
    });
    inSteps += t.steps.length;
    if (t.verdict?.success) inSolved++;
  });
  await host.close();
  await rt.close();

  // --- over the protocol: the same tasks, the same number of sessions -----------------------
  const server = await EnvServer.start({ runtime: new EnvRuntime(), sessions, maxSteps });
  const clients = await Promise.all(Array.from({ length: sessions }, () => session(server.url)));
  let wireSteps = 0;
  let wireSolved = 0;
  let infra = 0;
  const wireSeconds = await pool(tasks, sessions, async (task, w) => {
    const c = clients[w];
    let r = (await c.send({ type: 'reset', data: { task_id: task.id, expert: true } })).data as StepResult;
    while (!r.done) {
      r = (await c.send({ type: 'step', data: r.observation.expert_action })).data as StepResult;
      wireSteps++;
    }
    if (r.observation.info.infra_error) infra++;
    if (r.reward === 1) wireSolved++;
  });
  for (const c of clients) c.ws.close();
  await server.stop();

  const ratio = wireSteps / wireSeconds / (inSteps / inSeconds);
  rows.push(
    `throughput, ${sessions} sessions/workers, ${episodes} episodes per setting (heuristic teacher, max ${maxSteps} steps):`,
    `  in process      ${inSteps} steps in ${inSeconds.toFixed(1)} s = ${(inSteps / inSeconds).toFixed(2)} steps/s (${inSolved} solved)`,
    `  over OpenEnv    ${wireSteps} steps in ${wireSeconds.toFixed(1)} s = ${(wireSteps / wireSeconds).toFixed(2)} steps/s (${wireSolved} solved, ${infra} infra errors)`,
    `  ratio           ${ratio.toFixed(2)}x (target >= 0.8x)`,
  );
}

if (o.critical) {
  const store = loadCriticalStore(o.critical, siblingRuns(o.critical));
  const server = await EnvServer.start({ runtime: new EnvRuntime({ critical: store }), sessions });
  const ids = [...store.states.keys()];
  const clients = await Promise.all(
    Array.from({ length: Math.min(sessions, ids.length) }, () => session(server.url)),
  );
  const failed: string[] = [];
  const seconds = await pool(ids, clients.length, async (id, w) => {
    const r = await clients[w].send({ type: 'reset', data: { critical_state_id: id } });
    const replay = (r.data as StepResult).observation?.info.replay;
    if (!replay?.matched) failed.push(`${id}: ${replay?.detail ?? JSON.stringify(r.data)}`);
  });
  for (const c of clients) c.ws.close();
  await server.stop();
  const ok = ids.length - failed.length;
  rows.push(
    `critical-state resets on ${o.critical}:`,
    `  replay matched  ${ok}/${ids.length} = ${ids.length ? ((100 * ok) / ids.length).toFixed(1) : '-'}% (target >= 95%) in ${seconds.toFixed(1)} s` +
      (store.skipped.length ? `; ${store.skipped.length} states not replayable here` : ''),
    ...failed.map((f) => `    not matched: ${f}`),
  );
}

if (o.soak) {
  const minutes = Number(o.soak);
  const runtime = new EnvRuntime();
  const server = await EnvServer.start({ runtime, sessions, maxSteps });
  const world = await runtime.world();
  const train = world.tasks.filter((t) => t.split === 'train');
  const until = Date.now() + minutes * 60_000;
  let done = 0;
  let steps = 0;
  let infra = 0;
  let errors = 0;
  const seconds = await pool(
    Array.from({ length: sessions }, (_, w) => w),
    sessions,
    async (w) => {
      const c = await session(server.url);
      for (let k = 0; Date.now() < until; k++) {
        const reset = await c.send({
          type: 'reset',
          data: { task_id: train[(w * 131 + k * 17) % train.length].id, expert: true, perturbation_seed: k },
        });
        if (reset.type === 'error') {
          errors++;
          continue;
        }
        let r = reset.data as StepResult;
        while (!r.done) {
          const m = await c.send({ type: 'step', data: r.observation.expert_action });
          if (m.type === 'error') {
            errors++;
            break;
          }
          r = m.data;
          steps++;
        }
        if (r.observation.info.infra_error) infra++;
        done++;
      }
      c.ws.close();
    },
  );
  await new Promise((r) => setTimeout(r, 1_000));
  const left = server.activeSessions;
  const contexts = runtime.currentHost?.browser.contexts().length ?? 0;
  await server.stop();
  rows.push(
    `soak, ${sessions} sessions for ${minutes} min: ${done} episodes, ${steps} steps (${(steps / seconds).toFixed(2)} steps/s), ` +
      `${infra} infrastructure errors, ${errors} protocol errors; after the clients closed: ${left} sessions, ${contexts} browser contexts open`,
  );
}

process.stdout.write(`${rows.join('\n')}\n`);

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEpisode } from '../agent/episode.ts';
import { HeuristicAgent } from '../agent/heuristic/heuristic-agent.ts';
import { BrowserHost } from '../browser/index.ts';
import type { CriticalState } from '../core/critical-state.ts';
import type { Trajectory } from '../core/trajectory.ts';
import { RunStore } from '../store/index.ts';
import { startWorldEpisode } from '../world/episode.ts';
import { loadCriticalStore } from './critical.ts';
import type { StepResult, WireAction } from './protocol.ts';
import { EnvRuntime } from './runtime.ts';
import { EnvServer } from './server.ts';
import { connectWs, type WsConnection } from './websocket.ts';

// The env server over its own protocol, in this process so the tests can look into the browser:
// episodes to reward 1, protocol errors that leave the session up, the session cap, idle reaping,
// a dropped socket freeing its context, no state leaking between sessions or episodes under
// concurrent load, a Chromium crash reported as an infrastructure error, and critical-state resets.

/** A protocol client: one request, one answer. */
class Client {
  private constructor(
    readonly ws: WsConnection,
    private readonly inbox: string[],
    private readonly waiters: Array<(m: string) => void>,
  ) {}

  static async open(url: string): Promise<Client> {
    const ws = await connectWs(`${url.replace(/^http/, 'ws')}/ws`);
    const inbox: string[] = [];
    const waiters: Array<(m: string) => void> = [];
    ws.on('message', (m) => {
      const w = waiters.shift();
      if (w) w(m);
      else inbox.push(m);
    });
    return new Client(ws, inbox, waiters);
  }

  next(): Promise<{ type: string; data: Record<string, unknown> }> {
    const m = this.inbox.shift();
    if (m !== undefined) return Promise.resolve(JSON.parse(m));
    return new Promise((resolve) => this.waiters.push((x) => resolve(JSON.parse(x))));
  }

  async raw(text: string): Promise<{ type: string; data: Record<string, unknown> }> {
    this.ws.send(text);
    return this.next();
  }

  async send(type: string, data?: unknown): Promise<{ type: string; data: Record<string, unknown> }> {
    return this.raw(JSON.stringify(data === undefined ? { type } : { type, data }));
  }

  async reset(data: Record<string, unknown>): Promise<StepResult> {
    const r = await this.send('reset', data);
    if (r.type !== 'observation') throw new Error(`reset answered ${JSON.stringify(r)}`);
    return r.data as unknown as StepResult;
  }

  async step(action: WireAction): Promise<StepResult> {
    const r = await this.send('step', action);
    if (r.type !== 'observation') throw new Error(`step answered ${JSON.stringify(r)}`);
    return r.data as unknown as StepResult;
  }

  /** Follows the expert's actions to the end of the episode. */
  async solve(first: StepResult, maxSteps = 40): Promise<StepResult> {
    let r = first;
    for (let n = 0; !r.done && n < maxSteps; n++) {
      const a = r.observation.expert_action;
      if (!a) throw new Error(`no expert action at ${r.observation.url}`);
      r = await this.step(a);
    }
    return r;
  }
}

async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Pids of this process's Chromium children. */
function chromiumChildren(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,ppid=,comm=', '--ppid', String(process.pid)], {
    encoding: 'utf8',
  });
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 3 && Number(f[1]) === process.pid && /chrom/.test(f[2]))
    .map((f) => Number(f[0]));
}

// Tasks the heuristic teacher solves: a one-page lookup, and a seven-step count over filters.
const LOOKUP = 'shop.product-price.train.000';
const LONG = 'shop.count-filtered.train.000';

let dir: string;
let runtime: EnvRuntime;
let server: EnvServer;
let recorded: Trajectory;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-env-'));
  // A recorded success run to mine a state from: the teacher on the long task, in a world of its own
  // (another port than the server's, as a collection's would be).
  const host = await BrowserHost.launch();
  const rec = new EnvRuntime();
  try {
    const world = await rec.world();
    const env = await host.newEnv({ allowlist: [world.origin], screenshot: { enabled: false } });
    recorded = await runEpisode({
      agent: new HeuristicAgent(),
      env,
      task: world.byId.get(LONG)!,
      start: (e, t, ctx) => startWorldEpisode(e, t, world.origin, undefined, { perturb: ctx?.perturb }),
      verify: world.verify,
    });
  } finally {
    await host.close();
    await rec.close();
  }
  const store = RunStore.open(join(dir, 'collect'));
  store.saveTrajectory(recorded);
  store.close();
  const state = (id: string, i: number): CriticalState => ({
    schemaVersion: 1,
    id,
    task: recorded.task,
    success: {
      trajectoryId: recorded.id,
      stepIndex: i,
      observation: recorded.steps[i].observation,
      action: recorded.steps[i].action,
      history: [],
    },
    failure: {
      trajectoryId: recorded.id,
      stepIndex: i,
      observation: recorded.steps[i].observation,
      action: { type: 'go_back' },
      history: [],
    },
    comparability: { url: 1, elements: 1, memory: 1, progress: 1, total: 1 },
    label: 'other',
    labelSource: 'test',
    labelReason: '',
  });
  // The second state's recorded prefix clicks a link the live page does not have.
  const broken = structuredClone(recorded);
  const click = broken.steps.findIndex((s, k) => k > 0 && s.action.type === 'click');
  const target = broken.steps[click];
  const el = target.observation.elements.find((e) => e.index === (target.action as { index: number }).index)!;
  el.attributes = { ...el.attributes, href: '/mail/message/nowhere' };
  el.nodeKey = 'gone';
  el.name = el.text = 'A message that is not there';
  broken.id = 'traj_broken';
  const s2 = RunStore.open(join(dir, 'collect'));
  s2.saveTrajectory(broken);
  s2.close();
  const states = [
    state('cs_long', recorded.steps.length - 2),
    {
      ...state('cs_broken', click + 1),
      success: { ...state('x', click + 1).success, trajectoryId: 'traj_broken' },
    },
  ];
  const file = join(dir, 'mined', 'critical.jsonl');
  execFileSync('mkdir', ['-p', join(dir, 'mined')]);
  writeFileSync(file, `${states.map((s) => JSON.stringify(s)).join('\n')}\n`);
  runtime = new EnvRuntime({ critical: loadCriticalStore(file, [join(dir, 'collect')]) });
  server = await EnvServer.start({ runtime, sessions: 4, idleTimeoutMs: 60_000 });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('rmsweb env serve over the OpenEnv protocol', () => {
  it('answers health, schema and state over HTTP; stateless reset works, stateless step says why it cannot', async () => {
    expect(recorded.verdict?.success).toBe(true);
    expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: 'healthy' });
    const schema = (await (await fetch(`${server.url}/schema`)).json()) as Record<
      string,
      { anyOf?: unknown[] }
    >;
    expect(Object.keys(schema).sort()).toEqual(['action', 'observation', 'state']);
    const state = (await (await fetch(`${server.url}/state`)).json()) as Record<string, unknown>;
    expect(state).toMatchObject({ episode_id: null, step_count: 0, max_sessions: 4 });
    const reset = await fetch(`${server.url}/reset`, {
      method: 'POST',
      body: JSON.stringify({ task_id: LOOKUP }),
    });
    const r = (await reset.json()) as StepResult;
    expect(r.done).toBe(false);
    expect(r.reward).toBe(0);
    expect(r.observation.goal).toMatch(/How much does/);
    expect(r.observation.elements.length).toBeGreaterThan(3);
    expect(r.observation.screenshot).toBeNull();
    const bad = await fetch(`${server.url}/step`, {
      method: 'POST',
      body: JSON.stringify({ action: { type: 'fly' } }),
    });
    expect(bad.status).toBe(422);
    const ok = await fetch(`${server.url}/step`, {
      method: 'POST',
      body: JSON.stringify({ action: { type: 'click', index: 1 } }),
    });
    expect(ok.status).toBe(409);
    expect(server.activeSessions).toBe(0);
  });

  it('plays a task to reward 1 with a screenshot on request; a malformed message gets a protocol error and the session goes on', async () => {
    const c = await Client.open(server.url);
    expect((await c.raw('{not json')).data.code).toBe('INVALID_JSON');
    expect((await c.send('teleport')).data.code).toBe('UNKNOWN_TYPE');
    expect((await c.send('step', { type: 'click', index: 1 })).data.message).toMatch(/no episode/);
    expect((await c.send('reset', { task_id: 'no.such.task' })).data.code).toBe('VALIDATION_ERROR');
    const first = await c.reset({ task_id: LOOKUP, expert: true, screenshot: true });
    expect(Buffer.from(first.observation.screenshot ?? '', 'base64').subarray(0, 2)).toEqual(
      Buffer.from([0xff, 0xd8]),
    );
    expect((await c.send('step', { type: 'click', index: 'x' })).data.code).toBe('VALIDATION_ERROR');
    const end = await c.solve(first);
    expect(end).toMatchObject({ done: true, reward: 1 });
    expect(end.observation.info.verdict?.success).toBe(true);
    expect(end.observation.info.infra_error).toBeUndefined();
    const state = await c.send('state');
    expect(state.data).toMatchObject({ task_id: LOOKUP, step_count: 1, done: true });
    expect((await c.send('step', { type: 'go_back' })).data.message).toMatch(/episode is over/);
    // A wrong answer is a failure: reward 0, scored by the verifier.
    const again = await c.reset({ task_id: LOOKUP });
    const wrong = await c.step({ type: 'done', answer: 'It costs $1.00.' });
    expect(wrong).toMatchObject({ done: true, reward: 0 });
    expect(wrong.observation.info.verdict?.success).toBe(false);
    expect(again.observation.info.episode_id).not.toBe(first.observation.info.episode_id);
    c.ws.send(JSON.stringify({ type: 'close' }));
    await until('the session to close', () => server.activeSessions === 0);
  });

  it('starts at a mined critical state, reports the replay, and finishes it to reward 1; a prefix that no longer replays is reported, not scored', async () => {
    const c = await Client.open(server.url);
    const r = await c.reset({ critical_state_id: 'cs_long', expert: true });
    expect(r.done).toBe(false);
    expect(r.observation.info.replay).toMatchObject({ critical_state_id: 'cs_long', matched: true });
    expect(r.observation.info.replay?.steps).toBe(recorded.steps.length - 2);
    expect(new URL(r.observation.url).pathname).toBe(
      new URL(recorded.steps.at(-2)!.observation.url).pathname,
    );
    expect(r.observation.step).toBe(0);
    const end = await c.solve(r);
    expect(end).toMatchObject({ done: true, reward: 1 });
    const broken = await c.reset({ critical_state_id: 'cs_broken' });
    expect(broken).toMatchObject({ done: true, reward: null });
    expect(broken.observation.info.replay).toMatchObject({ matched: false });
    expect(broken.observation.info.end_reason).toBe('replay_failed');
    expect((await c.send('reset', { critical_state_id: 'cs_nope' })).data.message).toMatch(
      /no critical state/,
    );
    c.ws.close();
  });

  it('refuses a session beyond the cap with CAPACITY_REACHED, and frees the context of a socket dropped mid-episode', async () => {
    const clients = await Promise.all([0, 1, 2, 3].map(() => Client.open(server.url)));
    await Promise.all(clients.map((c, k) => c.reset({ split: 'train', index: k })));
    const contexts = runtime.currentHost!.browser.contexts().length;
    expect(server.activeSessions).toBe(4);
    const extra = await Client.open(server.url);
    const refused = await extra.next();
    expect(refused.data).toMatchObject({ code: 'CAPACITY_REACHED', max_sessions: 4 });
    // Killed mid-episode: no close message, the socket just goes away.
    clients[0].ws.destroy();
    await until('the dropped session to be freed', () => server.activeSessions === 3);
    await until(
      'its context to close',
      () => runtime.currentHost!.browser.contexts().length === contexts - 1,
    );
    const again = await Client.open(server.url);
    expect((await again.reset({ task_id: LOOKUP })).done).toBe(false);
    for (const c of [...clients.slice(1), again]) c.ws.close();
    await until('all sessions to close', () => server.activeSessions === 0);
  });

  it('leaks no cookie, storage or tab between concurrent sessions or between episodes (3 sessions, ~15 s)', async () => {
    const deadline = Date.now() + 15_000;
    const seenCookies = new Set<string>();
    let episodes = 0;
    const leaks: string[] = [];
    const worker = async (w: number) => {
      const c = await Client.open(server.url);
      for (let k = 0; Date.now() < deadline; k++) {
        const r = await c.reset({
          split: 'train',
          index: w * 97 + k * 13,
          expert: true,
          perturbation_seed: k,
        });
        const page = server.session(r.observation.info.episode_id!)!.page!;
        const ctx = page.context();
        const cookies = await ctx.cookies();
        if (cookies.some((x) => x.name.startsWith('leak'))) leaks.push(`cookie in session ${w} episode ${k}`);
        if (cookies.length !== 1)
          leaks.push(`session ${w} episode ${k} starts with ${cookies.length} cookies`);
        for (const x of cookies) {
          if (seenCookies.has(x.value)) leaks.push(`world session ${x.value} seen twice`);
          seenCookies.add(x.value);
        }
        if (ctx.pages().length !== 1)
          leaks.push(`session ${w} episode ${k} starts with ${ctx.pages().length} tabs`);
        const left = await page.evaluate(() => ({
          local: Object.keys(localStorage).filter((x) => x.startsWith('leak')),
          session: Object.keys(sessionStorage).filter((x) => x.startsWith('leak')),
          name: window.name,
        }));
        if (left.local.length || left.session.length || left.name)
          leaks.push(`storage in session ${w} episode ${k}: ${JSON.stringify(left)}`);
        // Leave state behind for the next episode (and any other session) to find.
        await page.evaluate((tag) => {
          // biome-ignore lint/suspicious/noDocumentCookie: the test plants a cookie that must not leak
          document.cookie = `leak${tag}=1; path=/`;
          localStorage.setItem(`leak${tag}`, '1');
          sessionStorage.setItem(`leak${tag}`, '1');
          window.name = `leak${tag}`;
        }, `${w}x${k}`);
        await ctx.newPage();
        const end = await c.solve(r, 12);
        if (end.done && end.reward === null)
          leaks.push(`infra error: ${JSON.stringify(end.observation.info)}`);
        episodes++;
      }
      c.ws.close();
    };
    await Promise.all([0, 1, 2].map(worker));
    expect(leaks).toEqual([]);
    expect(episodes).toBeGreaterThanOrEqual(6);
  }, 60_000);

  it('reports a Chromium crash as an infrastructure error (reward null), and the next reset works', async () => {
    const c = await Client.open(server.url);
    const before = runtime.launches;
    await c.reset({ task_id: LOOKUP });
    const pids = chromiumChildren();
    expect(pids.length).toBeGreaterThan(0);
    for (const p of pids) process.kill(p, 'SIGKILL');
    await until('the browser to go', () => !runtime.browserUp);
    const r = await c.step({ type: 'scroll', direction: 'down', pages: 1 });
    expect(r).toMatchObject({ done: true, reward: null });
    expect(r.observation.info.infra_error?.kind).toBe('browser');
    const next = await c.reset({ task_id: LOOKUP, expert: true });
    expect(next.done).toBe(false);
    expect(runtime.launches).toBe(before + 1);
    expect(await c.solve(next)).toMatchObject({ done: true, reward: 1 });
    c.ws.close();
  });
});

describe('idle sessions', () => {
  it('are reaped after the idle timeout', async () => {
    const rt = new EnvRuntime();
    const s = await EnvServer.start({ runtime: rt, idleTimeoutMs: 1_000 });
    try {
      const c = await Client.open(s.url);
      await c.reset({ task_id: LOOKUP });
      const closed = new Promise<number>((r) => c.ws.once('close', (code) => r(code)));
      const msg = await c.next();
      expect(msg.data.message).toMatch(/idle/);
      expect(await closed).toBe(1000);
      expect(s.activeSessions).toBe(0);
      expect(s.counts.reaped).toBe(1);
    } finally {
      await s.stop();
    }
  }, 30_000);
});

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFLECTION_UNUSABLE_RECORD } from '../../collect/collect.ts';
import { EPISODE_ERROR_RECORD } from '../../collect/episode-pool.ts';
import {
  type FakeOpenAIServer,
  type FakeReply,
  startFakeOpenAIServer,
} from '../../models/testing/fake-openai-server.ts';
import { RunStore } from '../../store/run-store.ts';
import { WorldServer } from '../../world/server.ts';
import { generateWorldTasks } from '../../world/tasks.ts';
import { runCli } from './fixtures.ts';

// An endpoint that is down (401, as with a wrong key) and later comes back: the episodes it could
// not run are errors, not failures. The fake server's replies are protocol fixtures, not a model.
const GIVE_UP = JSON.stringify({
  evaluation_previous_goal: 'Start',
  memory: '',
  next_goal: 'Stop here',
  action: [{ done: { text: 'not found', success: false } }],
});

describe('fault: infrastructure errors are not agent failures', () => {
  let dir: string;
  let fake: FakeOpenAIServer;
  let world: WorldServer;
  let port: number;
  let down = true;
  const env = { OPENAI_API_KEY: 'sk-test-not-a-key' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-faults-infra-'));
    // One world for every CLI run here (they reuse a world with the same seed on this port).
    world = await WorldServer.start({ port: 0, seed: 1 });
    port = Number(new URL(world.url).port);
    fake = await startFakeOpenAIServer({
      fallback: (): FakeReply =>
        down
          ? { type: 'error', status: 401, message: 'Incorrect API key provided' }
          : { type: 'text', text: GIVE_UP },
    });
  });
  afterAll(async () => {
    await fake?.close();
    await world?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const common = () => ['--port', String(port), '--workers', '1', '--max-steps', '2'];

  it('eval: a dead endpoint exits 1 saying how many, stores no episode, and the rerun retries it', async () => {
    const out = join(dir, 'eval');
    const args = ['eval', '--suite', 'world', '--agent', `openai:fake@${fake.baseURL}`, '--limit', '2'];
    const run = () => runCli([...args, '--runs', '1', '--out', out, ...common()], 120_000, env);
    down = true;
    const r = await run();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('eval: 2 of 2 episodes could not be run (all of them)');
    expect(r.stderr).toMatch(/401/);
    expect(r.stdout).toContain('pass@1 n/a (no episode ran); 2 errored episode(s) left out');
    let store = RunStore.open(out, { create: false, readonly: true });
    expect(store.countTrajectories()).toBe(0);
    expect(store.listRecords(EPISODE_ERROR_RECORD)).toHaveLength(2);
    const summary = store.getRecord<{ errored: number; episodes: number }>(
      'eval-summary',
      `openai:fake@${fake.baseURL}`,
    );
    expect(summary).toMatchObject({ errored: 2, episodes: 0 });
    store.close();

    down = false;
    const again = await run();
    expect(again.code).toBe(0);
    store = RunStore.open(out, { create: false, readonly: true });
    expect(store.countTrajectories({ tag: 'eval' })).toBe(2);
    expect(store.listRecords(EPISODE_ERROR_RECORD)).toHaveLength(0);
    expect(store.getRecord('eval-summary', `openai:fake@${fake.baseURL}`)).toMatchObject({
      errored: 0,
      episodes: 2,
    });
    store.close();
  }, 180_000);

  it('collect: a teacher whose endpoint fails is never reflected on, exits 1, and the rerun collects the round', async () => {
    const out = join(dir, 'collect');
    const run = () =>
      runCli(
        [
          'collect',
          '--tasks',
          'world:train:1',
          '--teacher',
          `openai:fake@${fake.baseURL}`,
          '--max-rounds',
          '1',
          '--out',
          out,
          ...common(),
        ],
        120_000,
        env,
      );
    down = true;
    const r = await run();
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('(1 could not be run)');
    expect(r.stderr).toContain('collect: 1 of 1 episodes could not be run (all of them)');
    let store = RunStore.open(out, { create: false, readonly: true });
    expect(store.countTrajectories()).toBe(0);
    expect(store.listReflections()).toHaveLength(0);
    store.close();

    down = false;
    const again = await run();
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('(0 errors)');
    store = RunStore.open(out, { create: false, readonly: true });
    expect(store.countTrajectories({ tag: 'collect' })).toBe(1);
    expect(store.listRecords(EPISODE_ERROR_RECORD)).toHaveLength(0);
    store.close();
  }, 180_000);

  it("collect: a reflection the model could not write is that round's outcome (exit 0); one that could not be run exits 1", async () => {
    // The teacher gives up (a failed round, reflected on); the reflector's endpoint either answers
    // prose where JSON is required, twice (first try and repair), or is down.
    let reflectorDown = false;
    const reflector = await startFakeOpenAIServer({
      fallback: (): FakeReply =>
        reflectorDown
          ? { type: 'error', status: 401, message: 'Incorrect API key provided' }
          : { type: 'text', text: 'The agent should try harder next time.' },
    });
    down = false;
    try {
      const run = (out: string) =>
        runCli(
          [
            'collect',
            '--tasks',
            'world:train:1',
            '--teacher',
            `openai:fake@${fake.baseURL}`,
            '--reflector',
            `openai:fake@${reflector.baseURL}`,
            '--max-rounds',
            '2',
            '--out',
            out,
            ...common(),
          ],
          120_000,
          env,
        );
      const out = join(dir, 'collect-unusable');
      const r = await run(out);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        "(0 errors; 2 reflection(s) unusable: the model's reply failed its schema twice)",
      );
      expect(r.stderr).toMatch(/round 0, reflection unusable .*failed its schema twice/);
      const store = RunStore.open(out, { create: false, readonly: true });
      const rounds = store.listTrajectories({ tag: 'collect' }).sort((a, b) => a.round - b.round);
      expect(rounds.map((t) => [t.round, t.notes.length])).toEqual([
        [0, 0],
        [1, 0],
      ]);
      expect(store.listReflections()).toHaveLength(0);
      const records = store.listRecords<{ round: number; reply: string }>(REFLECTION_UNUSABLE_RECORD);
      // Both rounds failed and were reflected on (a last round's note serves a rerun with more rounds).
      expect(records.map((x) => [x.value.round, x.value.reply])).toEqual([
        [0, 'The agent should try harder next time.'],
        [1, 'The agent should try harder next time.'],
      ]);
      store.close();

      reflectorDown = true;
      const down2 = await run(join(dir, 'collect-reflector-down'));
      expect(down2.code).toBe(1);
      expect(down2.stderr).toMatch(/round 0, reflection: .*401/);
      expect(down2.stderr).toContain('2 reflection(s) failed');
    } finally {
      await reflector.close();
    }
  }, 180_000);

  it('every episode errored (a task whose start URL is not a web page): exit 1', async () => {
    const [task] = generateWorldTasks({ split: 'train' });
    const file = join(dir, 'bad-start.jsonl');
    writeFileSync(file, `${JSON.stringify({ ...task, id: 'bad-start', startUrl: 'javascript:alert(1)' })}\n`);
    const r = await runCli([
      'collect',
      '--tasks',
      file,
      '--max-rounds',
      '1',
      '--out',
      join(dir, 'bad'),
      ...common(),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('collect: 1 of 1 episodes could not be run (all of them)');
  }, 120_000);

  it('refused commands exit 2 and leave no run folder behind', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['collect', '--tasks', 'world:train:1', '--teacher', 'nope'], /--teacher: unknown agent "nope"/],
      [['collect', '--tasks', 'world:train:1', '--reflector', 'nope'], /unknown reflector "nope"/],
      [
        ['eval', '--suite', 'world', '--agent', 'policy:/nonexistent'],
        /\/nonexistent: not a student checkpoint folder/,
      ],
      [['eval', '--suite', 'world', '--agent', 'openai:M'], /no API key for https:\/\/api\.openai\.com\/v1/],
      [
        ['rollout', '--tasks', 'world:train:1', '--agent', 'heuristic', '--relabel', 'nope'],
        /--relabel: unknown agent/,
      ],
      [['eval', '--suite', 'miniwob', '--agent', 'heuristic'], /--suite miniwob needs --miniwob-dir/],
    ];
    for (const [i, [args, message]] of cases.entries()) {
      const out = join(dir, `refused-${i}`);
      const r = await runCli([...args, '--out', out], 60_000, { OPENAI_API_KEY: '' });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(existsSync(out), `${args.join(' ')} left ${out}`).toBe(false);
    }
  }, 180_000);

  it('no tasks: exit 2', async () => {
    const file = join(dir, 'empty.jsonl');
    writeFileSync(file, '\n');
    const r = await runCli(['collect', '--tasks', file, '--out', join(dir, 'none')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: the task file holds no tasks`);
    expect(existsSync(join(dir, 'none'))).toBe(false);
  }, 60_000);
});

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { InputError, Task } from '../../core/index.ts';
import { BENCHMARK_SUITES, benchmarkSearchPath, SUITE_FILES } from '../../judge/index.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../../models/testing/fake-openai-server.ts';
import { droppedPathFor, registerTasks } from './tasks.ts';

// The fake server's canned replies test the CLI plumbing only, never rewriting quality.
let server: FakeOpenAIServer;
const tmp = mkdtempSync(join(tmpdir(), 'rmsweb-tasks-cli-'));

beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

async function run(args: string[]): Promise<string> {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const program = new Command('rmsweb').exitOverride();
  registerTasks(program);
  await program.parseAsync(['node', 'rmsweb', ...args]);
  vi.mocked(process.stdout.write).mockRestore();
  return out;
}

// Found as the CLI finds them ($RMSWEB_BENCHMARKS, ../shared/benchmarks from the working directory
// or this repository's root); the test is skipped, saying so, where they are absent.
const benchDir = benchmarkSearchPath().find((d) =>
  BENCHMARK_SUITES.every((s) => existsSync(join(d, SUITE_FILES[s]))),
);

describe('rmsweb tasks list', () => {
  it.skipIf(!benchDir)(
    `prints benchmark tasks as text and as JSON${benchDir ? '' : ` - skipped: benchmark files not found in ${benchmarkSearchPath().join(', ')}`}`,
    async () => {
      const text = await run([
        'tasks',
        'list',
        '--suite',
        'online-mind2web',
        '--benchmarks-dir',
        benchDir!,
        '--limit',
        '2',
      ]);
      expect(text.trim().split('\n')).toHaveLength(2);
      expect(text).toMatch(/^online-mind2web:\S+\tgamestop\.com\tmedium\t/);
      const json = JSON.parse(
        await run([
          'tasks',
          'list',
          '--suite',
          'webtailbench',
          '--benchmarks-dir',
          benchDir!,
          '--limit',
          '3',
          '--json',
        ]),
      );
      expect(json).toHaveLength(3);
      expect(json.every((t: unknown) => Task.safeParse(t).success)).toBe(true);
    },
  );

  it('lists the offline world through its task generator', async () => {
    const json = JSON.parse(await run(['tasks', 'list', '--suite', 'world', '--split', 'test', '--json']));
    expect(json.length).toBeGreaterThan(0);
    expect(json.every((t: Task) => t.suite === 'world' && t.split === 'test')).toBe(true);
  });

  it('rejects an unknown suite and a bad limit with InputError', async () => {
    await expect(run(['tasks', 'list', '--suite', 'bogus'])).rejects.toThrow(InputError);
    await expect(run(['tasks', 'list', '--suite', 'webvoyager', '--limit', '-1'])).rejects.toThrow(/limit/);
  });
});

describe('rmsweb tasks synth', () => {
  it('writes tasks and dropped queries through a model on an OpenAI-compatible server', async () => {
    const queries = join(tmp, 'queries.txt');
    writeFileSync(queries, 'cheapest red kettle\nlog into my bank\n');
    server.enqueue(
      {
        type: 'text',
        text: '{"feasible":true,"objective":"On shop.example, find the cheapest red kettle and report its price.","site":"shop","startUrl":"https://shop.example/"}',
        usage: { prompt_tokens: 1000, completion_tokens: 100 },
      },
      {
        type: 'text',
        text: '{"feasible":false,"reason":"needs a private login"}',
        usage: { prompt_tokens: 1000, completion_tokens: 100 },
      },
    );
    vi.stubEnv('RMSWEB_REWRITER_API_KEY', 'sk-test-cli-rewriter-key');
    const out = join(tmp, 'out', 'tasks.jsonl');
    const summary = JSON.parse(
      await run([
        'tasks',
        'synth',
        '--queries',
        queries,
        '--model',
        `openai:gpt-4o-mini@${server.baseURL}`,
        '--out',
        out,
        '--concurrency',
        '1',
        '--json',
      ]),
    );
    expect(summary).toMatchObject({ queries: 2, tasks: 1, dropped: 1, rewriter: 'llm:gpt-4o-mini' });
    expect(summary.usage.calls).toBe(2);
    expect(summary.usage.costUsd).toBeCloseTo((2000 * 0.15 + 200 * 0.6) / 1e6, 12);
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer sk-test-cli-rewriter-key');
    const tasks = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => Task.parse(JSON.parse(l)));
    expect(tasks).toHaveLength(1);
    expect(tasks[0].objective).toContain('cheapest red kettle');
    const dropped = readFileSync(droppedPathFor(out), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(dropped).toEqual([
      { line: 2, query: 'log into my bank', feasible: false, reason: 'needs a private login' },
    ]);
  });

  it('grounds raw queries in the offline world and drops what it cannot ground, with a reason', async () => {
    const q = join(tmp, 'raw-offline.jsonl');
    writeFileSync(
      q,
      [
        JSON.stringify({ query: 'asdf qwerty zzz', site: 'mail' }),
        JSON.stringify({ query: 'set my postbox signature to "Best, Sam Lee"', site: 'mail' }),
      ].join('\n'),
    );
    const out = join(tmp, 'o.jsonl');
    await run(['tasks', 'synth', '--queries', q, '--model', 'offline', '--out', out]);
    const dropped = readFileSync(droppedPathFor(out), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(
      dropped.some((d) => d.query === 'asdf qwerty zzz' && d.feasible === false && d.reason.length > 0),
    ).toBe(true);
    const kept = existsSync(out)
      ? readFileSync(out, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => Task.parse(JSON.parse(l)))
      : [];
    expect(kept.every((t) => t.suite === 'world' && t.verifier.kind === 'world')).toBe(true);
    expect(kept.length + dropped.length).toBe(2);
  }, 120_000);
});

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../core/errors.ts';
import { generateWorldTasks } from '../world/tasks.ts';
import { readTaskFile, refuseUnsafeStartUrls, resolveTasks } from './tasks-arg.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-tasks-arg-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const [a, b] = generateWorldTasks({ split: 'train' });

function thrown(f: () => unknown): InputError {
  try {
    f();
  } catch (e) {
    expect(InputError.isInstance(e)).toBe(true);
    return e as InputError;
  }
  throw new Error('expected an InputError');
}

describe('task files', () => {
  it('refuse an unknown field, naming the line and the field', () => {
    const file = join(dir, 'typo.jsonl');
    writeFileSync(file, `${JSON.stringify(a)}\n${JSON.stringify({ ...b, objectve: 'typo' })}\n`);
    const e = thrown(() => readTaskFile(file));
    expect(e.message).toBe(
      `${file}, line 2, field objectve: not a valid Task: unknown field "objectve" (known: schemaVersion, id, suite, site, objective, startUrl, level, split, referenceLength, category, verifier, meta; put extras in meta)`,
    );
  });

  it('refuse duplicate ids, naming both places (JSONL and JSON array)', () => {
    const file = join(dir, 'dup.jsonl');
    writeFileSync(file, `${JSON.stringify(a)}\n${JSON.stringify(b)}\n\n${JSON.stringify(a)}\n`);
    expect(thrown(() => readTaskFile(file)).message).toBe(
      `${file}, line 4, field id: duplicate task id "${a.id}" (first at line 1)`,
    );
    const arr = join(dir, 'dup.json');
    writeFileSync(arr, JSON.stringify([a, a]));
    expect(thrown(() => readTaskFile(arr)).message).toBe(
      `${arr}, field [1].id: duplicate task id "${a.id}" (first at item 0)`,
    );
  });

  it('refuse a directory given as the task file, naming the option', () => {
    expect(thrown(() => resolveTasks(dir)).message).toBe(
      `field --tasks: ${dir} is a directory, expected a task file`,
    );
  });

  it('refuse a file or a world spec that selects no tasks', () => {
    const file = join(dir, 'empty.jsonl');
    writeFileSync(file, '\n\n');
    expect(thrown(() => resolveTasks(file)).message).toBe(`${file}: the task file holds no tasks`);
    expect(thrown(() => resolveTasks('world:train:0')).message).toMatch(/selects no tasks/);
  });
});

describe('live tasks with a dangerous start URL', () => {
  const live = (id: string, startUrl: string) => ({
    id,
    suite: 'webvoyager',
    site: 'example',
    objective: 'Find the opening hours.',
    startUrl,
    verifier: { kind: 'judge' },
  });

  it('are refused when read from a file, naming the task and the URL, unless private addresses are allowed', () => {
    const file = join(dir, 'live.jsonl');
    const tasks = [
      live('ok', 'https://www.example.com/'),
      live('meta', 'http://0xA9FEA9FE/latest/meta-data/'),
    ];
    writeFileSync(file, tasks.map((t) => JSON.stringify(t)).join('\n'));
    const e = thrown(() => resolveTasks(file));
    expect(e.message).toContain(file);
    expect(e.message).toContain('task "meta" starts at http://0xA9FEA9FE/latest/meta-data/');
    expect(e.message).toContain('169.254.169.254');
    expect(e.message).toContain('--allow-private');
    expect(resolveTasks(file, { allowPrivate: true }).map((t) => t.id)).toEqual(['ok', 'meta']);
  });

  it('leave the offline world alone: its tasks start on 127.0.0.1 by design', () => {
    const file = join(dir, 'world.jsonl');
    writeFileSync(file, `${JSON.stringify(a)}\n`);
    expect(a.startUrl).toMatch(/^http:\/\/127\.0\.0\.1|^http:\/\/localhost/);
    expect(resolveTasks(file).map((t) => t.id)).toEqual([a.id]);
    expect(() => refuseUnsafeStartUrls([a, b], {})).not.toThrow();
  });

  it('are refused by `rmsweb collect` with exit 2 before any browser starts, leaving no run folder', () => {
    const file = join(dir, 'file-url.jsonl');
    writeFileSync(file, `${JSON.stringify(live('local-file', 'file:///etc/passwd'))}\n`);
    const out = join(dir, 'collect-run');
    const r = spawnSync(
      process.execPath,
      [
        join(import.meta.dirname, '../../bin/rmsweb.js'),
        'collect',
        '--tasks',
        file,
        '--out',
        out,
        '--stop-after',
        '1',
        '--max-rounds',
        '1',
        '--max-steps',
        '1',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('task "local-file" starts at file:///etc/passwd');
    expect(existsSync(out)).toBe(false);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../core/errors.ts';
import { generateWorldTasks } from '../world/tasks.ts';
import { readTaskFile, resolveTasks } from './tasks-arg.ts';

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

  it('refuse a file or a world spec that selects no tasks', () => {
    const file = join(dir, 'empty.jsonl');
    writeFileSync(file, '\n\n');
    expect(thrown(() => resolveTasks(file)).message).toBe(`${file}: the task file holds no tasks`);
    expect(thrown(() => resolveTasks('world:train:0')).message).toMatch(/selects no tasks/);
  });
});

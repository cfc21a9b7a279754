import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from './errors.ts';
import { openJsonlJournal, repairTornTail } from './jsonl-journal.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-jsonl-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('append-only JSONL journals', () => {
  it('cut a torn last line on opening, warn once with the bytes dropped, and append cleanly after', () => {
    const path = join(dir, 'nested', 'j.jsonl');
    openJsonlJournal(path, 'test journal').append({ n: 1 });
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"n":2,"tor`);
    const warnings: string[] = [];
    for (const n of [2, 3, 4])
      openJsonlJournal(path, 'test journal', { warn: (m) => warnings.push(m) }).append({ n });
    expect(warnings).toEqual([expect.stringContaining('dropped 11 bytes')]);
    const j = openJsonlJournal(path, 'test journal');
    expect(j.droppedBytes).toBe(0);
    expect(j.records).toEqual([1, 2, 3, 4].map((n, i) => ({ line: i + 1, value: { n } })));
  });

  it('leave a missing, empty or clean file alone', () => {
    const warn = () => {
      throw new Error('no warning expected');
    };
    expect(repairTornTail(join(dir, 'missing.jsonl'), warn)).toBe(0);
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    expect(repairTornTail(empty, warn)).toBe(0);
    const clean = join(dir, 'clean.jsonl');
    writeFileSync(clean, '{"a":1}\n');
    expect(repairTornTail(clean, warn)).toBe(0);
    expect(readFileSync(clean, 'utf8')).toBe('{"a":1}\n');
  });

  it('drop a file that is one torn line to nothing', () => {
    const path = join(dir, 'one.jsonl');
    writeFileSync(path, '{"a":');
    expect(repairTornTail(path, () => {})).toBe(5);
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('refuse a bad complete line with the file and its line number', () => {
    const path = join(dir, 'bad.jsonl');
    writeFileSync(path, '{"a":1}\nnot json\n{"a":2}\n');
    expect(() => openJsonlJournal(path, 'test journal')).toThrow(InputError);
    expect(() => openJsonlJournal(path, 'test journal')).toThrow(
      `${path}, line 2: test journal line is not JSON`,
    );
  });
});

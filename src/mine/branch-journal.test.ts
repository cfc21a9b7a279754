import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openJournal } from './branch-journal.ts';
import type { BranchResult } from './branches.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-branch-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function result(key: string): BranchResult {
  return {
    key,
    reproduced: false,
    comparability: 0.5,
    detail: `diverged at ${key}`,
    branch: null,
    wallMs: 3,
  };
}

describe('the verification journal', () => {
  it('drops a torn last line before appending, so reruns after a kill keep working', () => {
    const path = join(dir, 'critical.verify.jsonl');
    const first = openJournal(path);
    first.put(result('a'));
    first.put(result('b'));
    // A kill mid-write leaves half of the next record and no newline.
    const whole = readFileSync(path, 'utf8');
    const torn = JSON.stringify(result('c')).slice(0, 25);
    writeFileSync(path, whole + torn);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let writes: string[];
    try {
      for (const key of ['c', 'd', 'e']) openJournal(path).put(result(key));
      writes = stderr.mock.calls.map((c) => String(c[0])).filter((s) => s.includes(path));
    } finally {
      stderr.mockRestore();
    }
    expect(writes).toHaveLength(1);
    expect(writes[0]).toContain(`dropped ${torn.length} bytes`);
    const back = openJournal(path);
    expect(back.size).toBe(5);
    for (const key of ['a', 'b', 'c', 'd', 'e']) expect(back.get(key)).toEqual(result(key));
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(5);
  });
});

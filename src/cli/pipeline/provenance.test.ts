import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitState } from './provenance.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsweb-provenance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('gitState', () => {
  it('calls a tree dirty for changed source, not for changed results or untracked files', () => {
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir });
    git('init', '-q');
    mkdirSync(join(dir, 'results'));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'results', 'table.md'), 'a\n');
    writeFileSync(join(dir, 'src', 'code.ts'), 'a\n');
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    // asked from a subfolder, as the CLI asks from its own source folder
    const at = join(dir, 'src');
    expect(gitState(at)).toEqual({ commit: expect.stringMatching(/^[0-9a-f]{40}$/), dirty: false });
    writeFileSync(join(dir, 'results', 'table.md'), 'b\n');
    writeFileSync(join(dir, 'untracked.txt'), 'x\n');
    expect(gitState(at).dirty).toBe(false);
    expect(gitState(at, []).dirty).toBe(true);
    writeFileSync(join(dir, 'src', 'code.ts'), 'b\n');
    expect(gitState(at).dirty).toBe(true);
  });

  it('answers no commit outside git', () => {
    const outside = mkdtempSync(join(tmpdir(), 'rmsweb-nogit-'));
    try {
      expect(gitState(outside)).toEqual({ commit: null, dirty: false });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

import { z } from 'zod';
import { Action, InputError, VerificationBranch } from '../core/index.ts';
import { openJsonlJournal } from '../core/jsonl-journal.ts';
import type { BranchResult } from './branches.ts';

/** Where finished branches are kept between runs. */
export interface BranchJournal {
  get(key: string): BranchResult | undefined;
  put(result: BranchResult): void;
}

const JournalLine = z.object({
  key: z.string(),
  reproduced: z.boolean(),
  comparability: z.number(),
  detail: z.string(),
  branch: VerificationBranch.extend({ action: Action }).nullable(),
  wallMs: z.number(),
});

/**
 * The append-only JSONL journal of finished branches (`mine --verify` keeps it beside --out): a
 * rerun of the same command skips them. A torn last line (the process was killed mid-write) is cut
 * off on opening, so that branch runs again; any other bad line is an input error naming it.
 */
export function openJournal(path: string): BranchJournal & { size: number } {
  const file = openJsonlJournal(path, 'verification journal');
  const map = new Map<string, BranchResult>();
  for (const { line, value } of file.records) {
    const r = JournalLine.safeParse(value);
    if (!r.success)
      throw new InputError(`verification journal line is invalid: ${r.error.issues[0]?.message}`, {
        file: path,
        line,
        field: r.error.issues[0]?.path.join('.'),
      });
    map.set(r.data.key, r.data);
  }
  return {
    get size() {
      return map.size;
    },
    get: (k) => map.get(k),
    put: (r) => {
      map.set(r.key, r);
      file.append(r);
    },
  };
}

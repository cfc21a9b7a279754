import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_PROMPT_TOKENS,
  LM_SYSTEM_PROMPT,
  lmPromptText,
  lmReplyText,
  parseLmAction,
  renderLmObservation,
} from '../agent/lm-prompt.ts';
import { systemPrompt } from '../agent/prompt.ts';
import { agentView, parseAgentOutput, sha256 } from '../core/index.ts';
import { RunStore } from '../store/index.ts';
import { exportSft, readJsonl } from './export-sft.ts';
import { buildCollection, buildRelabeledRollout, EXPERT_ACTION, NOTE, NOTE_C } from './fixtures.ts';
import { NoteScrubber, words } from './note-scrub.ts';
import { scrubbedHistory } from './sft-flatten.ts';
import { SFT_FORMATS } from './sft-formats.ts';

let root: string;
let run: string;
const NOTE_SCRUBBER = new NoteScrubber([NOTE, NOTE_C]);
// 3 + 2 + 2 steps of verified successes, minus the one step whose action copies a note.
const EXPECTED_EXAMPLES = 6;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'rmsweb-sft-'));
  run = join(root, 'runs', 'collect1');
  await buildCollection(run);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map((f) => join(dir, String(f)))
    .filter((f) => statSync(f).isFile());
}

function allStrings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) allStrings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) allStrings(x, out);
  return out;
}

/** No 6-word window of any note, nor its distinctive words, in any file (raw, and every JSON string). */
function expectNoNoteText(dir: string): void {
  const files = allFiles(dir);
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) {
    const raw = readFileSync(f).toString('latin1');
    expect(NOTE_SCRUBBER.leaks(raw), f).toBe(false);
    for (const w of ['zephyr', 'marmalade', 'lavender', 'okapi', 'decoy'])
      expect(words(raw).includes(w), `${w} in ${f}`).toBe(false);
    if (f.endsWith('.jsonl') || f.endsWith('.json')) {
      const rows = f.endsWith('.jsonl') ? readJsonl(f) : [JSON.parse(raw)];
      for (const s of allStrings(rows)) expect(NOTE_SCRUBBER.leaks(s), `${f}: ${s.slice(0, 80)}`).toBe(false);
      expect(raw.includes('"notes"')).toBe(false);
    }
  }
}

function assistantOk(text: string): void {
  const { actions } = parseAgentOutput(JSON.parse(text));
  expect(actions).toHaveLength(1);
}

describe('exportSft', () => {
  it('flattens verified successes only, one example per step, notes stripped', () => {
    const out = join(root, 'out-swift');
    const sum = exportSft({ runs: [run], format: 'swift', out });
    expect(sum.trajectories).toBe(3);
    expect(sum.examples).toBe(EXPECTED_EXAMPLES);
    expect(sum.droppedNoteLeak).toBe(1);
    expect(sum.missingImages).toBe(0);
    const rows = readJsonl(join(out, 'train.jsonl')) as Array<{
      messages: Array<{ role: string; content: string }>;
      images: string[];
    }>;
    expect(rows).toHaveLength(EXPECTED_EXAMPLES);
    // The failed round-0 attempt of task A is not there; its memory text is unique to it.
    expect(JSON.stringify(rows).includes('Done, I think.')).toBe(false);
    // Text unrelated to the note survives verbatim, quoted/paraphrased/self-referencing sentences do not.
    const a0 = JSON.parse(rows[0].messages[2].content);
    expect(a0).toEqual({
      thinking: 'The page shows a shipping select.',
      evaluation_previous_goal: 'Unknown - first step.',
      memory: 'The cart holds 2 items.',
      next_goal: '',
      action: [{ select_dropdown: { index: 1, text: 'Express' } }],
    });
    const a1user = rows[1].messages[1].content;
    expect(a1user).toContain('<memory>\nThe cart holds 2 items.\n</memory>');
    expect(a1user).toContain('<progress>Shipping chosen.</progress>');
    expect(a1user).toContain(
      'Step 1: evaluation: Unknown - first step.; action: select_dropdown(1, "Express") -> ok',
    );
    // Same prompt as LlmAgent acts with (minus notes), so training matches inference.
    expect(rows[0].messages[0].content).toBe(systemPrompt());
    expect(a1user).not.toContain('<notes from earlier attempts>');
    const b0 = JSON.parse(rows[3].messages[2].content);
    expect(b0.memory).toBe('Voucher SPRING10 applies to order B.');
    expectNoNoteText(out);
  });

  for (const format of SFT_FORMATS) {
    it(`${format}: reads back by the format's rules and leaks no note text`, () => {
      const out = join(root, `out-${format}`);
      const sum = exportSft({ runs: [run], format, out });
      expect(sum.examples).toBe(EXPECTED_EXAMPLES);
      const rows = readJsonl(join(out, 'train.jsonl')) as Array<Record<string, any>>;
      expect(rows).toHaveLength(EXPECTED_EXAMPLES);
      const store = RunStore.open(run, { readonly: true });
      for (const row of rows) checkRow(format, row, out, store);
      store.close();
      if (format === 'llamafactory') {
        const info = JSON.parse(readFileSync(join(out, 'dataset_info.json'), 'utf8'));
        expect(info.rmsweb_sft).toEqual({
          file_name: 'train.jsonl',
          formatting: 'sharegpt',
          columns: { messages: 'messages', system: 'system', images: 'images' },
          tags: { role_tag: 'role', content_tag: 'content', user_tag: 'user', assistant_tag: 'assistant' },
        });
        expect(existsSync(join(out, info.rmsweb_sft.file_name))).toBe(true);
      }
      expect(JSON.parse(readFileSync(join(out, 'export.json'), 'utf8')).examples).toBe(EXPECTED_EXAMPLES);
      expectNoNoteText(out);
    });
  }

  it('lm: the prompt is what the student is prompted with at inference, within the budget', () => {
    const out = join(root, 'out-lm-budget');
    exportSft({ runs: [run], format: 'lm', out, promptTokens: 128 });
    const rows = readJsonl(join(out, 'train.jsonl')) as Array<Record<string, string>>;
    const store = RunStore.open(run, { readonly: true });
    const scrub = new NoteScrubber([NOTE, NOTE_C]);
    for (const row of rows) {
      const [trajectoryId, stepIndex] = row.id.split(':');
      const t = store.getTrajectory(trajectoryId);
      if (!t) throw new Error(`no trajectory ${trajectoryId}`);
      const i = t.steps.findIndex((x) => x.index === Number(stepIndex));
      // The inference side: the agent's view of the task, the observation without notes, the history.
      const history = scrubbedHistory(t, scrub).slice(0, i);
      const r = renderLmObservation(
        { task: agentView(t.task), observation: { ...t.steps[i].observation, notes: [] }, history },
        128,
      );
      expect(row.prompt).toBe(lmPromptText(r));
      expect(r.tokens).toBeLessThanOrEqual(128);
    }
    store.close();
    expect(JSON.parse(readFileSync(join(out, 'export.json'), 'utf8'))).toMatchObject({
      layout: 'lm',
      promptTokens: 128,
    });
  });

  it('merges several runs without duplicating a trajectory', async () => {
    const run2 = join(root, 'runs', 'collect2');
    await buildCollection(run2);
    const out = join(root, 'out-merged');
    const sum = exportSft({ runs: [run, run2], format: 'trl', out });
    expect(sum.examples).toBe(EXPECTED_EXAMPLES);
    expect(sum.trajectories).toBe(3);
  });

  it("relabeled: the states a rollout reached, with the expert's action as the completion (DAgger)", () => {
    const rollDir = join(root, 'runs', 'rollout-relabel');
    // The agent answered `done` at step 1; the expert would have clicked. Step 0 has no label.
    const rollout = buildRelabeledRollout(rollDir, run);
    const out = join(root, 'out-relabeled');
    const sum = exportSft({ runs: [rollDir], format: 'lm', out, relabeled: true });
    expect(sum).toMatchObject({ trajectories: 1, examples: 1 });
    const [row] = readJsonl(join(out, 'train.jsonl')) as Array<Record<string, string>>;
    expect(row.id).toBe('roll_A0:1');
    expect(row.completion).toBe(lmReplyText(EXPERT_ACTION));
    // The prompt is the state the agent itself reached, after its own step 0, as inference renders it.
    const history = scrubbedHistory(rollout, new NoteScrubber([])).slice(0, 1);
    const r = renderLmObservation(
      { task: agentView(rollout.task), observation: { ...rollout.steps[1].observation, notes: [] }, history },
      DEFAULT_PROMPT_TOKENS,
    );
    expect(row.prompt).toBe(lmPromptText(r));
    expect(JSON.parse(readFileSync(join(out, 'export.json'), 'utf8'))).toMatchObject({ relabeled: true });

    // A collection holds no labels; other formats' targets are whole outputs the expert never wrote.
    expect(() => exportSft({ runs: [run], format: 'lm', out: join(root, 'x1'), relabeled: true })).toThrow(
      /hold no relabelled rollouts/,
    );
    expect(existsSync(join(root, 'x1', 'train.jsonl'))).toBe(false);
    expect(() =>
      exportSft({ runs: [rollDir], format: 'trl', out: join(root, 'x2'), relabeled: true }),
    ).toThrow(/--relabeled needs --format lm/);
  });

  it('relabeled: a state where the expert would give up is no label, and is counted', () => {
    const rollDir = join(root, 'runs', 'rollout-relabel-giveup');
    const rollout = buildRelabeledRollout(rollDir, run);
    // The same rollout, with the expert's give-up recorded at step 0 as well.
    const store = RunStore.open(rollDir);
    store.saveTrajectory({
      ...rollout,
      steps: rollout.steps.map((st, i) =>
        i === 0
          ? { ...st, expertAction: { type: 'done' as const, success: false, text: 'nothing to do' } }
          : st,
      ),
    });
    store.close();
    const out = join(root, 'out-relabeled-giveup');
    const sum = exportSft({ runs: [rollDir], format: 'lm', out, relabeled: true });
    expect(sum).toMatchObject({ trajectories: 1, examples: 1, droppedGiveUp: 1 });
    const rows = readJsonl(join(out, 'train.jsonl')) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.id, r.completion])).toEqual([['roll_A0:1', lmReplyText(EXPERT_ACTION)]]);
    // The successes' export has no labels to drop.
    expect(exportSft({ runs: [run], format: 'lm', out: join(root, 'out-lm-plain') }).droppedGiveUp).toBe(0);
  });

  it('fails clearly on a missing run folder and an unknown format', () => {
    expect(() => exportSft({ runs: [join(root, 'nope')], format: 'swift', out: join(root, 'x') })).toThrow(
      /nope does not exist/,
    );
    expect(() => exportSft({ runs: [run], format: 'alpaca' as never, out: join(root, 'x') })).toThrow(
      /unknown SFT format "alpaca"/,
    );
  });
});

function checkRow(format: string, row: Record<string, any>, out: string, store: RunStore): void {
  const resolveImg = (p: string) => (isAbsolute(p) ? p : join(out, p));
  const checkImages = (images: string[], placeholders: number) => {
    expect(images).toHaveLength(placeholders);
    for (const p of images) {
      const bytes = readFileSync(resolveImg(p));
      expect(store.hasImage(sha256(bytes))).toBe(true);
    }
  };
  if (format === 'trl') {
    expect(Object.keys(row).sort()).toEqual(['images', 'messages']);
    expect(row.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant']);
    let imageParts = 0;
    for (const m of row.messages) {
      expect(Array.isArray(m.content)).toBe(true);
      for (const part of m.content) {
        expect(['text', 'image']).toContain(part.type);
        if (part.type === 'text') expect(typeof part.text).toBe('string');
        else imageParts++;
      }
    }
    checkImages(row.images, imageParts);
    expect(row.images.every((p: string) => isAbsolute(p))).toBe(true);
    assistantOk(row.messages[2].content[0].text);
  } else if (format === 'swift') {
    expect(row.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant']);
    const placeholders = row.messages.reduce(
      (n: number, m: any) => n + m.content.split('<image>').length - 1,
      0,
    );
    checkImages(row.images, placeholders);
    assistantOk(row.messages[2].content);
  } else if (format === 'llamafactory') {
    expect(typeof row.system).toBe('string');
    expect(row.system).toContain('select_dropdown');
    const roles = row.messages.map((m: any) => m.role);
    expect(roles).toEqual(roles.map((_: string, i: number) => (i % 2 === 0 ? 'user' : 'assistant')));
    expect(roles.length % 2).toBe(0);
    const placeholders = row.messages.reduce(
      (n: number, m: any) => n + m.content.split('<image>').length - 1,
      0,
    );
    expect(row.images.every((p: string) => !isAbsolute(p))).toBe(true);
    checkImages(row.images, placeholders);
    assistantOk(row.messages[1].content);
  } else if (format === 'lm') {
    expect(Object.keys(row).sort()).toEqual(['completion', 'id', 'prompt']);
    expect(row.prompt.startsWith(LM_SYSTEM_PROMPT)).toBe(true);
    expect(row.prompt.endsWith('\nAction: ')).toBe(true);
    // The completion is the executed action, in the form the student is parsed by at inference.
    const [trajectoryId, stepIndex] = row.id.split(':');
    const step = store.getTrajectory(trajectoryId)?.steps.find((x) => x.index === Number(stepIndex));
    expect(parseLmAction(row.completion)).toEqual(step?.action);
  } else {
    expect(Object.keys(row)).toEqual(['messages']);
    expect(row.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant']);
    const parts = row.messages[1].content;
    expect(parts[0].type).toBe('text');
    const img = parts.find((p: any) => p.type === 'image_url');
    const m = /^data:image\/jpeg;base64,(.+)$/.exec(img.image_url.url);
    expect(m).not.toBeNull();
    const bytes = Buffer.from(m![1], 'base64');
    expect(bytes[0]).toBe(0xff);
    expect(bytes[1]).toBe(0xd8);
    expect(store.hasImage(sha256(bytes))).toBe(true);
    assistantOk(row.messages[2].content);
  }
}

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LmAgent } from '../agent/lm-agent.ts';
import { LM_PROMPT_VERSION, lmReplyText } from '../agent/lm-prompt.ts';
import { agentView, type CriticalState, fromBrowserUse, sha256 } from '../core/index.ts';
import type { TextCompletionModel, TextCompletionOptions } from '../models/text-completion.ts';
import { RunStore } from '../store/index.ts';
import { exportRl } from './export-rl.ts';
import { exportSft, readJsonl } from './export-sft.ts';
import { buildCollection, criticalFrom, jpeg, NOTE, NOTE_C } from './fixtures.ts';
import { NoteScrubber, words } from './note-scrub.ts';
import { actionOnlyHistory, scrubbedHistory, scrubObservation, visibleNotes } from './sft-flatten.ts';

let root: string;
let run: string;
let states: CriticalState[];
let critical: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'rmsweb-rl-'));
  run = join(root, 'run');
  await buildCollection(run);
  const store = RunStore.open(run, { readonly: true });
  const fromOther = criticalFrom(store, 'tA_r1', 'tA_r0', 2, 'cs_detached');
  // A state whose success trajectory is not in the run: the prompt falls back to the state alone.
  fromOther.success.trajectoryId = 'traj_elsewhere';
  states = [criticalFrom(store, 'tA_r1', 'tA_r0', 1), criticalFrom(store, 'tB_r0', 'tA_r0', 1), fromOther];
  store.close();
  critical = join(root, 'critical.jsonl');
  writeFileSync(critical, `${states.map((s) => JSON.stringify(s)).join('\n')}\n`);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const scrubber = new NoteScrubber([NOTE, NOTE_C]);

describe('exportRl', () => {
  it('writes verl parquet rows that read back with hyparquet', async () => {
    const out = join(root, 'rl', 'train.parquet');
    const sum = exportRl({ runs: [run], critical, format: 'verl', out });
    expect(sum).toMatchObject({ rows: 3, images: 3, withTrajectoryHistory: 2, droppedNoteLeak: 0 });
    const file = new Uint8Array(readFileSync(out)).buffer;
    const meta = parquetMetadata(file);
    expect(Number(meta.num_rows)).toBe(3);
    expect(parquetSchema(meta).children.map((c) => c.element.name)).toEqual([
      'data_source',
      'prompt',
      'images',
      'ability',
      'reward_model',
      'extra_info',
    ]);
    const rows = (await parquetReadObjects({ file, utf8: false })) as any[];
    const store = RunStore.open(run, { readonly: true });
    rows.forEach((row, i) => {
      const cs = states[i];
      expect(row.data_source).toBe('rmsweb/world');
      expect(row.ability).toBe('web_navigation');
      expect(row.prompt.map((m: any) => m.role)).toEqual(['system', 'user']);
      const placeholders = row.prompt.reduce(
        (n: number, m: any) => n + m.content.split('<image>').length - 1,
        0,
      );
      expect(row.images).toHaveLength(placeholders);
      expect(sha256(row.images[0].bytes)).toBe(cs.success.observation.screenshot!.hash);
      expect(store.hasImage(sha256(row.images[0].bytes))).toBe(true);
      expect(row.reward_model.style).toBe('rule');
      expect(fromBrowserUse(JSON.parse(row.reward_model.ground_truth))).toEqual(cs.success.action);
      expect(row.extra_info).toMatchObject({
        critical_state_id: cs.id,
        task_id: cs.task.id,
        label: 'lookalike-element',
        index: BigInt(i),
      });
      expect(row.extra_info.comparability).toBeCloseTo(0.8);
      expect(row.prompt[1].content).toContain(cs.task.objective);
      for (const m of row.prompt) {
        expect(scrubber.leaks(m.content)).toBe(false);
        expect(words(m.content)).not.toContain('zephyr');
      }
    });
    // Step 1 of task A: the history shows step 0 from the stored trajectory, scrubbed.
    expect(rows[0].prompt[1].content).toContain('<memory>\nThe cart holds 2 items.\n</memory>');
    expect(rows[2].prompt[1].content).toContain('action: click(3) -> ok');
    store.close();
  });

  it('writes JSONL rows with images beside the file', () => {
    const out = join(root, 'rl-jsonl', 'train.jsonl');
    const sum = exportRl({ runs: [run], critical, format: 'jsonl', out });
    expect(sum.rows).toBe(3);
    const rows = readJsonl(out) as any[];
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      expect(r.images).toHaveLength(1);
      expect(existsSync(join(root, 'rl-jsonl', r.images[0]))).toBe(true);
      expect(JSON.parse(r.reward_model.ground_truth)).toBeTypeOf('object');
      expect(scrubber.leaks(JSON.stringify(r))).toBe(false);
    }
    expect(existsSync(join(root, 'rl-jsonl', 'train.jsonl.export.json'))).toBe(true);
  });

  it('names the line of a corrupt critical-state record', () => {
    const bad = join(root, 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify(states[0])}\n{"id": "cs_x", oops\n`);
    expect(() =>
      exportRl({ runs: [run], critical: bad, format: 'verl', out: join(root, 'x.parquet') }),
    ).toThrow(/bad\.jsonl, line 2: not valid JSON/);
    const bad2 = join(root, 'bad2.jsonl');
    writeFileSync(bad2, `\n${JSON.stringify({ ...states[0], label: 'weird' })}\n`);
    expect(() =>
      exportRl({ runs: [run], critical: bad2, format: 'jsonl', out: join(root, 'x.jsonl') }),
    ).toThrow(/line 2, field label/);
  });

  it('fails naming the line when a screenshot is in no run store', () => {
    const s = structuredClone(states[1]);
    s.success.observation.screenshot!.hash = 'f'.repeat(64);
    const file = join(root, 'missing.jsonl');
    writeFileSync(file, `${JSON.stringify(states[0])}\n${JSON.stringify(s)}\n`);
    expect(() =>
      exportRl({ runs: [run], critical: file, format: 'verl', out: join(root, 'y.parquet') }),
    ).toThrow(/line 2: screenshot f+ of critical state/);
    expect(existsSync(join(root, 'y.parquet'))).toBe(false);
  });

  it('uses an inline screenshot payload when no store has the image', async () => {
    const s = structuredClone(states[2]);
    const bytes = await jpeg(777);
    s.success.observation.screenshot = {
      hash: sha256(bytes),
      mime: 'image/jpeg',
      width: 16,
      height: 12,
      data: bytes.toString('base64'),
    };
    const file = join(root, 'inline.jsonl');
    writeFileSync(file, `${JSON.stringify(s)}\n`);
    const out = join(root, 'inline', 'rows.jsonl');
    expect(exportRl({ runs: [run], critical: file, format: 'jsonl', out }).images).toBe(1);
    const [row] = readJsonl(out) as any[];
    expect(readFileSync(join(root, 'inline', row.images[0]))).toEqual(bytes);
  });

  it('refuses an empty critical-state file, as rmsweb rl does', () => {
    const file = join(root, 'empty.jsonl');
    writeFileSync(file, '\n');
    expect(() =>
      exportRl({ runs: [run], critical: file, format: 'jsonl', out: join(root, 'e.jsonl') }),
    ).toThrow(/empty\.jsonl: no critical states in file/);
    expect(existsSync(join(root, 'e.jsonl'))).toBe(false);
  });

  it('reads a pipeline folder (demo, ablate): its own store plus the sub-runs holding the collection', async () => {
    const demo = join(root, 'demo');
    RunStore.open(demo).close(); // the pipeline's own store: stage records, no collection
    await buildCollection(join(demo, 'collect'));
    const out = join(root, 'demo-rows.jsonl');
    const sum = exportRl({ runs: [demo], critical, format: 'jsonl', out });
    expect(sum).toMatchObject({ rows: 3, images: 3, withTrajectoryHistory: 2 });
  });

  describe('format lm', () => {
    /** The prompt LmAgent sends for an input: what the student sees at inference. */
    async function inferencePrompt(input: Parameters<LmAgent['act']>[0], promptTokens: number) {
      const calls: TextCompletionOptions[] = [];
      const model: TextCompletionModel = {
        id: 'capture',
        provider: 'test',
        complete: async (o) => {
          calls.push(o);
          return {
            text: '{"click":{"index":0}}',
            finishReason: 'stop',
            usage: { promptTokens: 0, completionTokens: 0, costUsd: 0, calls: 1 },
          };
        },
      };
      await new LmAgent({ model, promptTokens }).act(input);
      return calls[0].prompt;
    }

    it('writes plain-text prompts rendered as LmAgent renders them, and the SFT reply as the anchor', async () => {
      const out = join(root, 'rl-lm', 'rl.jsonl');
      const sum = exportRl({ runs: [run], critical, format: 'lm', out, promptTokens: 400 });
      expect(sum).toMatchObject({ format: 'lm', rows: 3, images: 0, withTrajectoryHistory: 2 });
      expect(existsSync(join(root, 'rl-lm', 'images'))).toBe(false);
      const rows = readJsonl(out) as any[];
      const store = RunStore.open(run, { readonly: true });
      try {
        for (const [i, row] of rows.entries()) {
          const cs = states[i];
          expect(typeof row.prompt).toBe('string');
          expect(row.prompt.endsWith('\nAction: ')).toBe(true);
          expect(row.images).toEqual([]);
          expect(fromBrowserUse(JSON.parse(row.reward_model.ground_truth))).toEqual(cs.success.action);
          expect(row.extra_info).toMatchObject({
            critical_state_id: cs.id,
            layout: 'lm',
            lmPromptVersion: LM_PROMPT_VERSION,
            promptTokens: 400,
            completion: lmReplyText(cs.success.action),
          });
          expect(row.extra_info.observation.elements.length).toBe(cs.success.observation.elements.length);
          expect(scrubber.leaks(JSON.stringify(row))).toBe(false);
          // export == inference: LmAgent's prompt for the same task, page and history
          const t = store.getTrajectory(cs.success.trajectoryId);
          const notes = [...cs.success.observation.notes];
          let input: Parameters<LmAgent['act']>[0];
          if (t) {
            const k = t.steps.findIndex((x) => x.index === cs.success.stepIndex);
            const scrub = new NoteScrubber(visibleNotes(t, notes));
            input = {
              task: agentView(t.task),
              observation: cs.success.observation,
              history: scrubbedHistory(t, scrub).slice(0, k),
            };
          } else {
            const observation = scrubObservation(cs.success.observation, new NoteScrubber(notes));
            input = {
              task: agentView(cs.task),
              observation,
              history: actionOnlyHistory(cs.success.history, observation),
            };
          }
          expect(row.prompt).toBe(await inferencePrompt(input, 400));
        }
      } finally {
        store.close();
      }
      const meta = JSON.parse(readFileSync(join(root, 'rl-lm', 'rl.jsonl.export.json'), 'utf8'));
      expect(meta).toMatchObject({
        kind: 'rl',
        layout: 'lm',
        lmPromptVersion: LM_PROMPT_VERSION,
        promptTokens: 400,
      });
    });

    it('writes the same prompt and reply as export sft --format lm for the same step', () => {
      const out = join(root, 'rl-lm2', 'rl.jsonl');
      exportRl({ runs: [run], critical, format: 'lm', out });
      const sft = exportSft({ runs: [run], format: 'lm', out: join(root, 'sft-lm') });
      const byId = new Map((readJsonl(sft.file) as any[]).map((r) => [r.id, r]));
      const rows = readJsonl(out) as any[];
      let compared = 0;
      for (const [i, row] of rows.entries()) {
        const cs = states[i];
        const twin = byId.get(`${cs.success.trajectoryId}:${cs.success.stepIndex}`);
        if (!twin) continue; // the detached state's trajectory is in no run
        expect(row.prompt).toBe(twin.prompt);
        expect(row.extra_info.completion).toBe(twin.completion);
        // the reply has no line break: LmAgent's stop ('\n') never cuts it, EOS ends it
        expect(twin.completion).not.toContain('\n');
        compared++;
      }
      expect(compared).toBe(2);
    });

    it('refuses promptTokens on another format', () => {
      expect(() =>
        exportRl({ runs: [run], critical, format: 'jsonl', out: join(root, 'p.jsonl'), promptTokens: 300 }),
      ).toThrow(/promptTokens applies to the lm format only/);
    });
  });
});

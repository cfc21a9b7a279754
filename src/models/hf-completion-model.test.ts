import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LmAgent } from '../agent/lm-agent.ts';
import { lmPromptText, renderLmObservation } from '../agent/lm-prompt.ts';
import { resolveAgent, trainedPromptTokens } from '../cli/runtime.ts';
import { Observation } from '../core/index.ts';
import type { AgentTask } from '../core/task.ts';
import { HfCompletionModel } from './hf-completion-model.ts';
import { trainerEnv, trainerPython } from './trainer-python.ts';

/**
 * `--agent lm:hf:DIR` end to end on a tiny random causal LM (no download): the raw-prompt request
 * round-trips through the Python `serve` process and LmAgent decides through it. Quality is not the
 * point; the wiring is. Skipped without the trainer's venv, as the pytest suite is.
 */
const python = trainerPython();
const present = Boolean(process.env.RMSWEB_PYTHON) || existsSync(python);

const task = { id: 't', objective: 'Search for Paris hotels', startUrl: 'http://127.0.0.1/' } as AgentTask;
const observation = Observation.parse({
  url: 'http://127.0.0.1:4000/travel',
  title: 'Travel',
  elements: [
    { index: 0, tag: 'input', name: 'Destination', bbox: { x: 0, y: 0, width: 1, height: 1 }, nodeKey: 'a' },
    { index: 1, tag: 'button', name: 'Search', bbox: { x: 0, y: 0, width: 1, height: 1 }, nodeKey: 'b' },
  ],
});
const prompt = lmPromptText(renderLmObservation({ task, observation, history: [] }));

describe.skipIf(!present && !process.env.CI)('HfCompletionModel (lm:hf:DIR)', () => {
  let dir: string;
  let model: string;
  const open: HfCompletionModel[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-hf-lm-'));
    model = join(dir, 'tiny');
    const rows = ['{"click":{"index":1}}', '{"input":{"index":0,"text":"Paris"}}'].map((completion) =>
      JSON.stringify({ prompt, completion }),
    );
    writeFileSync(join(dir, 'train.jsonl'), `${rows.join('\n')}\n`);
    const r = spawnSync(python, ['-m', 'rmsweb_trainer', 'tiny', '--out', model, '--data', dir], {
      encoding: 'utf8',
      env: trainerEnv({ OMP_NUM_THREADS: '1' }),
    });
    expect(r.status, r.stderr).toBe(0);
  }, 120_000);
  afterAll(() => {
    for (const m of open) m.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('continues a raw prompt greedily, the same every time, and cuts at a stop string', async () => {
    // one torch thread, as each of several model processes on few cores gets (threadsPerWorker)
    const m = new HfCompletionModel(model, { threads: 1 });
    open.push(m);
    const a = await m.complete({ prompt, maxTokens: 8 });
    expect(m.threads).toBe(1);
    const b = await m.complete({ prompt, maxTokens: 8, temperature: 0 });
    expect(b.text).toBe(a.text);
    expect(a.usage.promptTokens).toBeGreaterThan(20);
    expect(a.usage.completionTokens).toBeGreaterThan(0);
    expect(a.usage.completionTokens).toBeLessThanOrEqual(8);
    expect(['stop', 'length']).toContain(a.finishReason);
    if (a.text.length >= 3) {
      const stop = a.text.slice(1, 3);
      const c = await m.complete({ prompt, maxTokens: 8, stop: [stop] });
      expect(c.text).toBe(a.text.slice(0, a.text.indexOf(stop)));
      expect(c.finishReason).toBe('stop');
    }
  }, 120_000);

  it('is the completion model of --agent lm:hf:DIR, and LmAgent decides through it', async () => {
    const agent = await resolveAgent(`lm:hf:${model}`);
    expect(agent).toBeInstanceOf(LmAgent);
    expect(agent.id).toBe(`lm:hf:${model}`);
    const d = await agent.act({ task, observation, history: [] });
    // a random model: whatever it wrote is an action or an unusable reply scored as a failure
    expect(d.actions).toHaveLength(1);
    expect(d.usage?.promptTokens).toBeGreaterThan(20);
    ((agent as unknown as { opts: { model: HfCompletionModel } }).opts.model as HfCompletionModel).close();
  }, 120_000);

  it('reads the budget an lm checkpoint was trained with from its rmsweb-trainer.json', () => {
    const ckpt = join(dir, 'ckpt');
    rmSync(ckpt, { recursive: true, force: true });
    expect(trainedPromptTokens(ckpt)).toBeUndefined();
    spawnSync('mkdir', ['-p', ckpt]);
    writeFileSync(join(ckpt, 'rmsweb-trainer.json'), JSON.stringify({ layout: 'lm', promptTokens: 512 }));
    expect(trainedPromptTokens(ckpt)).toBe(512);
    writeFileSync(join(ckpt, 'rmsweb-trainer.json'), JSON.stringify({ algo: 'sft', promptTokens: 512 }));
    expect(trainedPromptTokens(ckpt)).toBeUndefined(); // trained on chat rows: no lm budget
    writeFileSync(join(ckpt, 'rmsweb-trainer.json'), JSON.stringify({ layout: 'lm', promptTokens: 'x' }));
    expect(() => trainedPromptTokens(ckpt)).toThrow(/rmsweb-trainer\.json.*promptTokens/);
  });
});

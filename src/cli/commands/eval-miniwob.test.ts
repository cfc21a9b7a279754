import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InputError } from '../../core/errors.ts';
import type { EvalSummary } from '../../eval/metrics.ts';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../../models/testing/fake-openai-server.ts';
import { registerEval } from './eval.ts';

// A MiniWoB-shaped folder (core/core.js + miniwob/<env>.html) that speaks MiniWoB's page protocol:
// WOB_TASK_READY, core.startEpisodeReal(), core.getUtterance(), WOB_DONE_GLOBAL and
// WOB_RAW_REWARD_GLOBAL. It checks `rmsweb eval --suite miniwob` end to end, not MiniWoB's tasks.
const CORE = `
window.WOB_TASK_READY = false; window.WOB_DONE_GLOBAL = false; window.WOB_RAW_REWARD_GLOBAL = 0;
var core = {
  startEpisodeReal: function () { document.getElementById('query').textContent = 'Click on the "' + window.TARGET + '" button.'; },
  getUtterance: function () { return document.getElementById('query').textContent; },
  endEpisode: function (r) { window.WOB_RAW_REWARD_GLOBAL = r; window.WOB_DONE_GLOBAL = true; },
};
window.addEventListener('load', function () { setTimeout(function () { window.WOB_TASK_READY = true; }, 50); });
`;
const page = (
  target: string,
  a: string,
  b: string,
) => `<!doctype html><html><head><script src="../core/core.js"></script></head><body>
<div id="query"></div><div id="area"><button id="a">${a}</button><button id="b">${b}</button></div>
<script>window.TARGET = '${target}';
document.getElementById('a').onclick = function () { core.endEpisode(window.TARGET === '${a}' ? 1 : -1); };
document.getElementById('b').onclick = function () { core.endEpisode(window.TARGET === '${b}' ? 1 : -1); };</script></body></html>`;

// The agent is an OpenAI-compatible endpoint scripted to click the button the utterance names (a
// protocol fixture: it reads the prompt the LlmAgent sends), and to give up when there is none.
function reply(body: unknown): string {
  const text = JSON.stringify(body);
  const target = /Click on the \\"([^\\]+)\\" button/.exec(text)?.[1];
  const index = target ? new RegExp(`\\[(\\d+)\\]<button>${target} \\/>`).exec(text)?.[1] : undefined;
  const action = index
    ? { click: { index: Number(index) } }
    : { done: { text: 'no such button', success: false } };
  return JSON.stringify({ evaluation_previous_goal: '', memory: '', next_goal: 'act', action: [action] });
}

let dir: string;
let wob: string;
let fake: FakeOpenAIServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-eval-miniwob-'));
  wob = join(dir, 'html');
  mkdirSync(join(wob, 'core'), { recursive: true });
  mkdirSync(join(wob, 'miniwob'));
  writeFileSync(join(wob, 'core', 'core.js'), CORE);
  writeFileSync(join(wob, 'miniwob', 'click-ok.html'), page('OK', 'Cancel', 'OK'));
  writeFileSync(join(wob, 'miniwob', 'click-submit.html'), page('Submit', 'Submit', 'Reset'));
  writeFileSync(join(wob, 'miniwob', 'click-missing.html'), page('Nope', 'Yes', 'No'));
  fake = await startFakeOpenAIServer({ fallback: (req) => ({ type: 'text', text: reply(req.body) }) });
});
afterAll(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function evalCli(args: string[]): Promise<string> {
  const program = new Command('rmsweb').exitOverride();
  registerEval(program);
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    out += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await program.parseAsync(['node', 'rmsweb', 'eval', '--suite', 'miniwob', '--miniwob-dir', wob, ...args]);
  } finally {
    spy.mockRestore();
    err.mockRestore();
  }
  return out;
}

describe('rmsweb eval --suite miniwob', () => {
  it('runs the environments of a MiniWoB folder and reports pass@1 per environment', async () => {
    const agent = `openai:scripted@${fake.baseURL}`;
    vi.stubEnv('OPENAI_API_KEY', 'sk-test-not-a-key');
    try {
      const out = await evalCli([
        '--agent',
        agent,
        '--runs',
        '2',
        '--max-steps',
        '3',
        '--workers',
        '1',
        '--json',
        '--out',
        join(dir, 'run'),
      ]);
      const s = JSON.parse(out) as EvalSummary & { complete: boolean };
      expect(s).toMatchObject({
        suite: 'miniwob',
        tasks: 3,
        runs: 2,
        episodes: 6,
        errored: 0,
        complete: true,
      });
      expect(Object.fromEntries(Object.entries(s.perSite).map(([env, r]) => [env, r.mean]))).toEqual({
        'click-missing': 0,
        'click-ok': 1,
        'click-submit': 1,
      });
      expect(s.pass1.mean).toBeCloseTo(2 / 3);
      expect(existsSync(join(dir, 'run', 'reports', agent.replace(/[^\w.-]+/g, '_'), 'report.html'))).toBe(
        true,
      );

      // --tasks picks environments; a name the folder lacks is refused before anything is written.
      const one = JSON.parse(
        await evalCli([
          '--agent',
          agent,
          '--tasks',
          'click-ok',
          '--runs',
          '1',
          '--json',
          '--out',
          join(dir, 'one'),
        ]),
      );
      expect(Object.keys(one.perSite)).toEqual(['click-ok']);
      const bad = await evalCli([
        '--agent',
        agent,
        '--tasks',
        'click-ok,click-nowhere',
        '--out',
        join(dir, 'bad'),
      ]).catch((e) => e);
      expect(InputError.isInstance(bad)).toBe(true);
      expect(bad.message).toMatch(/no MiniWoB environment "click-nowhere"/);
      expect(existsSync(join(dir, 'bad'))).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
  }, 180_000);

  it('refuses a folder that is not MiniWoB-shaped and a --tasks without the miniwob suite', async () => {
    const err = await evalCli([
      '--agent',
      'heuristic',
      '--miniwob-dir',
      join(wob, 'core'),
      '--out',
      join(dir, 'x'),
    ]).catch((e) => e);
    expect(err.message).toMatch(/no miniwob\/ folder/);
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.ts';
import { runEpisode } from '../agent/episode.ts';
import { BrowserHost } from '../browser/index.ts';
import type { Action } from '../core/action.ts';
import { makeAgentOutput } from '../core/agent-output.ts';
import { listMiniwobEnvs, miniwobHooks, miniwobTasks, serveMiniwob } from './miniwob.ts';

// A stand-in for MiniWoB++'s html folder with the same page globals, written by the test: it
// checks our driver's protocol (ready flag, startEpisodeReal, getUtterance, done flag, raw
// reward), not MiniWoB's tasks themselves.
const CORE = `
window.WOB_TASK_READY = false; window.WOB_DONE_GLOBAL = false; window.WOB_RAW_REWARD_GLOBAL = 0;
var core = {
  startEpisodeReal: function () { document.getElementById('query').textContent = 'Click on the "' + window.TARGET + '" button.'; },
  getUtterance: function () { return document.getElementById('query').textContent; },
  endEpisode: function (r) { window.WOB_RAW_REWARD_GLOBAL = r; window.WOB_DONE_GLOBAL = true; },
};
window.addEventListener('load', function () { setTimeout(function () { window.WOB_TASK_READY = true; }, 50); });
`;
const PAGE = `<!doctype html><html><head><script src="../core/core.js"></script></head><body>
<div id="query"></div><div id="area"><button id="a">Cancel</button><button id="b">OK</button></div>
<script>window.TARGET = 'OK';
document.getElementById('a').onclick = function () { core.endEpisode(-1); };
document.getElementById('b').onclick = function () { core.endEpisode(1); };</script></body></html>`;

function clicker(name: string): Agent {
  return {
    id: `click-${name}`,
    async act({ observation, task }) {
      const target = task.objective.includes(name)
        ? observation.elements.find((e) => e.name === name)
        : undefined;
      const a: Action = target
        ? { type: 'click', index: target.index }
        : { type: 'done', text: '', success: false };
      return { output: makeAgentOutput({}, [a]), actions: [a] };
    },
  };
}

describe('miniwob suite', () => {
  let dir: string;
  let host: BrowserHost;
  let wob: Awaited<ReturnType<typeof serveMiniwob>>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-wob-'));
    mkdirSync(join(dir, 'core'));
    mkdirSync(join(dir, 'miniwob'));
    writeFileSync(join(dir, 'core', 'core.js'), CORE);
    writeFileSync(join(dir, 'miniwob', 'click-test.html'), PAGE);
    wob = await serveMiniwob(dir);
    host = await BrowserHost.launch();
  });
  afterAll(async () => {
    await host?.close();
    await wob?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists environments and rejects a folder without miniwob/', () => {
    expect(listMiniwobEnvs(dir)).toEqual(['click-test']);
    expect(() => listMiniwobEnvs(join(dir, 'core'))).toThrow(/no miniwob\/ folder/);
  });

  it('drives an episode through the page globals: utterance as objective, raw reward 1 is success', async () => {
    const [task] = miniwobTasks(wob.origin, ['click-test']);
    const hooks = miniwobHooks();
    const env = await host.newEnv({ screenshot: { enabled: false } });
    try {
      const ok = await runEpisode({
        agent: clicker('OK'),
        env,
        task,
        start: hooks.start,
        isTerminal: hooks.isTerminal,
        verify: hooks.verify,
      });
      expect(ok.task.objective).toBe('Click on the "OK" button.');
      expect(ok.endReason).toBe('done');
      expect(ok.endDetail).toMatch(/environment signalled/);
      expect(ok.verdict?.success).toBe(true);
      const wrong = await runEpisode({
        agent: clicker('Cancel'),
        env,
        task,
        start: hooks.start,
        isTerminal: hooks.isTerminal,
        verify: hooks.verify,
      });
      expect(wrong.verdict?.success).toBe(false);
      expect(wrong.verdict?.reason).toMatch(/raw reward -1|raw reward 0/);
    } finally {
      await env.close();
    }
  });
});

describe('the MiniWoB file server', () => {
  /** One raw GET (no client-side URL normalisation or escaping): the status and the body. */
  function get(origin: string, path: string): Promise<{ status: number; body: string }> {
    const { hostname, port } = new URL(origin);
    return new Promise((resolve, reject) => {
      const req = request({ host: hostname, port, path, method: 'GET' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('answers 400 to a malformed % escape and keeps serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmsweb-wob-serve-'));
    mkdirSync(join(dir, 'miniwob'));
    writeFileSync(join(dir, 'miniwob', 'click-test.html'), '<p>ok</p>');
    const wob = await serveMiniwob(dir);
    try {
      expect((await get(wob.origin, '/miniwob/%E0%A4%A.html')).status).toBe(400);
      expect((await get(wob.origin, '/miniwob/%.html')).status).toBe(400);
      expect(await get(wob.origin, '/miniwob/click%2Dtest.html')).toEqual({ status: 200, body: '<p>ok</p>' });
      expect((await get(wob.origin, '/miniwob/%2e%2e/%2e%2e/etc/passwd')).status).toBe(404);
    } finally {
      await wob.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

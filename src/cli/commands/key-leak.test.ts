import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAIServer, startFakeOpenAIServer } from '../../models/testing/fake-openai-server.ts';

// A planted key must never reach anything a run writes or prints: the store, images, manifest,
// exports, stdout/stderr - even when the endpoint echoes the Authorization header in an error.
// The fake server's canned replies test plumbing only.
const KEY = 'sk-planted-0123456789abcdefSECRET';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('API keys never leak into a run', () => {
  let server: FakeOpenAIServer;
  let dir: string;
  let calls = 0;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rmsweb-keyleak-'));
    server = await startFakeOpenAIServer({
      fallback: (req) => {
        calls++;
        // One error that echoes the credentials, as misconfigured proxies do.
        if (calls === 2)
          return {
            type: 'error',
            status: 500,
            message: `upstream rejected ${String(req.headers.authorization)}`,
          };
        const system = String(req.body?.messages?.[0]?.content ?? '');
        if (system.includes('failed attempt'))
          return {
            type: 'text',
            text: JSON.stringify({ text: 'Try the search box first.', avoid: [], prefer: [] }),
          };
        const step = (req.body?.messages ?? []).length;
        return {
          type: 'text',
          text: JSON.stringify({
            evaluation_previous_goal: 'ok',
            memory: 'm',
            next_goal: 'finish',
            action: [
              step > 99
                ? { scroll: { down: true, pages: 1 } }
                : { done: { text: 'no idea', success: false } },
            ],
          }),
        };
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('collect, stats and export with an LLM teacher and reflector leave no trace of the key', async () => {
    const run = join(dir, 'run');
    const env = { ...process.env, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.baseURL };
    const spec = `openai:fake-model@${server.baseURL}`;
    const outs: string[] = [];
    // Async: the fake server lives in this process, so a blocking spawn would starve it.
    const cli = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const p = spawn(process.execPath, ['bin/rmsweb.js', ...args], { env });
        let stdout = '';
        let stderr = '';
        p.stdout.on('data', (d) => (stdout += d));
        p.stderr.on('data', (d) => (stderr += d));
        p.on('close', (status) => {
          outs.push(stdout, stderr);
          resolve({ status, stdout, stderr });
        });
      });
    const c = await cli(
      'collect',
      '--tasks',
      'world:train:1',
      '--teacher',
      spec,
      '--reflector',
      spec,
      '--out',
      run,
      '--max-rounds',
      '2',
      '--port',
      '0',
      '--workers',
      '1',
      '--quiet',
    );
    expect(c.status, c.stderr).toBe(0);
    expect(server.requests.length).toBeGreaterThan(2);
    expect(server.requests.every((r) => String(r.headers.authorization).includes(KEY))).toBe(true);
    expect((await cli('stats', '--run', run, '--json')).status).toBe(0);
    expect(
      (await cli('export', 'sft', '--run', run, '--format', 'trl', '--out', join(dir, 'sft'))).status,
    ).toBe(0);
    const files = [...filesUnder(run), ...filesUnder(join(dir, 'sft'))];
    expect(files.some((f) => f.endsWith('store.sqlite'))).toBe(true);
    for (const f of files) expect(readFileSync(f).includes(KEY), f).toBe(false);
    for (const o of outs) expect(o.includes(KEY)).toBe(false);
    expect(outs.join('\n').includes('SECRET')).toBe(false);
  }, 300_000);
});

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURES } from '../../browser/fixtures/pages.ts';
import { type FixtureServer, serveFixtures } from '../../browser/fixtures/server.ts';
import { InputError, NavigationError } from '../../core/errors.ts';
import { sha256 } from '../../core/ids.ts';
import { registerObserve, urlScheme } from './observe.ts';

let srv: FixtureServer;
let dir: string;

beforeAll(async () => {
  srv = await serveFixtures(FIXTURES);
  dir = mkdtempSync(join(tmpdir(), 'rmsweb-observe-'));
});

afterAll(async () => {
  await srv?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `rmsweb observe ...args` in-process and returns what it printed on stdout. */
async function observe(...args: string[]): Promise<string> {
  const program = new Command('rmsweb').exitOverride();
  registerObserve(program);
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    out += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await program.parseAsync(['node', 'rmsweb', 'observe', ...args]);
  } finally {
    spy.mockRestore();
    err.mockRestore();
  }
  return out;
}

describe('rmsweb observe', () => {
  it('prints the text view and writes the screenshot', async () => {
    const file = join(dir, 'shot.jpg');
    const out = await observe(srv.url('/modal'), '--screenshot', file, '--viewport', '640x480');
    expect(out).toContain(`Current URL: ${srv.url('/modal')}`);
    expect(out).toMatch(/\[1\]<button covered=true>Buy now \/>/);
    const jpeg = readFileSync(file);
    expect(jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  it('prints the Observation as JSON, the screenshot by reference only', async () => {
    const file = join(dir, 'form.jpg');
    const obs = JSON.parse(await observe(srv.url('/form'), '--json', '--screenshot', file));
    expect(obs.url).toBe(srv.url('/form'));
    expect(obs.screenshot.data).toBeUndefined();
    expect(obs.screenshot.hash).toBe(sha256(readFileSync(file)));
    const email = obs.elements.find((e: { name: string }) => e.name === 'Email address');
    expect(Object.keys(email)).toEqual(
      expect.arrayContaining(['index', 'tag', 'role', 'name', 'text', 'attributes', 'bbox']),
    );
    expect(email.attributes).toMatchObject({ type: 'email', name: 'email' });
  });

  it('rejects an unreachable URL with a NavigationError', async () => {
    const err = await observe('http://127.0.0.1:9/').catch((e) => e);
    expect(NavigationError.isInstance(err)).toBe(true);
    expect(err.message).toMatch(/^Cannot reach http:\/\/127\.0\.0\.1:9\/: net::ERR_/);
  });

  it('refuses non-http(s) schemes as usage errors; file: only with --allow-file', async () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'chrome://settings']) {
      const err = await observe(url).catch((e) => e);
      expect(InputError.isInstance(err), url).toBe(true);
      expect(err.message).toMatch(/only http\(s\) pages can be observed/);
    }
    const page = join(dir, 'page.html');
    writeFileSync(page, '<!doctype html><button>Local</button>');
    const refused = await observe(`file://${page}`).catch((e) => e);
    expect(refused.message).toMatch(/pass --allow-file/);
    expect(await observe(`file://${page}`, '--allow-file', '--no-screenshot')).toMatch(
      /\[1\]<button>Local \/>/,
    );
    expect(urlScheme('localhost:8080/x')).toBeNull();
    expect(urlScheme('example.com')).toBeNull();
  });

  it('exits 1 with a clear message through the real bin', () => {
    const r = spawnSync(process.execPath, ['bin/rmsweb.js', 'observe', 'http://127.0.0.1:9/'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.stderr).toMatch(/^rmsweb: Cannot reach http:\/\/127\.0\.0\.1:9\/: net::ERR_/m);
    expect(r.status).toBe(1);
  });
});

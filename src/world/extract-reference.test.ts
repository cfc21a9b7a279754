import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractBoth, firstDifference } from '../browser/fixtures/extract-reference/index.ts';
import { type BrowserEnv, BrowserHost } from '../browser/index.ts';
import { Rng } from '../core/rng.ts';
import { WorldServer } from './server.ts';
import { randomAction } from './testing/random-play.ts';

// The world's own pages (every site's, reached by following links from the home page, then after
// seeded random actions): the tuned extractor returns exactly what the reference returns.
let world: WorldServer;
let host: BrowserHost;
let env: BrowserEnv;

beforeAll(async () => {
  world = await WorldServer.start({ port: 0 });
  host = await BrowserHost.launch();
  env = await host.newEnv({ viewport: { width: 1280, height: 800 }, screenshot: { enabled: false } });
});

afterAll(async () => {
  await host?.close();
  await world?.stop();
});

async function expectSame(label: string): Promise<void> {
  const { reference, current } = await extractBoth(env.page);
  expect(firstDifference(reference, current), label).toBeNull();
}

describe('the tuned extractor on world pages', () => {
  it('matches the reference on pages of every site and after random actions', async () => {
    const seen = new Set<string>();
    const queue = [`${world.url}/`];
    const sites = new Set<string>();
    while (queue.length && seen.size < 30) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      const obs = await env.reset({ startUrl: url });
      await expectSame(url);
      sites.add(new URL(url).pathname.split('/')[1]);
      for (const e of obs.elements) {
        const href = e.attributes.href;
        if (href?.startsWith('/') && !href.startsWith('/__')) queue.push(world.url + href);
      }
    }
    expect(sites.size).toBeGreaterThan(5);
    const rng = new Rng('extract-reference');
    for (const start of [...seen].slice(1, 9)) {
      let obs = await env.reset({ startUrl: start });
      for (let k = 0; k < 4; k++) {
        const action = randomAction(obs, rng);
        obs = await env.step(action);
        await expectSame(`${start} after ${JSON.stringify(action)}`);
      }
    }
  });
});

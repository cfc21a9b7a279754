import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { z } from 'zod';
import { BrowserHost } from '../../browser/index.ts';
import { InputError } from '../../core/errors.ts';
import { fileOption, intOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';

const Viewport = z
  .string()
  .regex(/^\d+x\d+$/, 'expected WIDTHxHEIGHT, e.g. 1280x800')
  .transform((s) => {
    const [width, height] = s.split('x').map(Number);
    return { width, height };
  });

const Options = z.object({
  json: z.boolean().default(false),
  // `--screenshot FILE` gives a path, `--no-screenshot` false, neither undefined.
  screenshot: z.union([fileOption(), z.boolean()]).optional(),
  quality: intOption(1, 100).default(60),
  viewport: Viewport.default({ width: 1280, height: 800 }),
  timeout: intOption(1).default(15_000),
  browserWs: z.string().optional(),
  allowFile: z.boolean().default(false),
});

/**
 * The scheme of a URL as typed, or null for a bare host (`example.com`, `localhost:8080`), which
 * the browser env completes with http(s).
 */
export function urlScheme(url: string): string | null {
  const m = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim());
  if (!m) return null;
  if (/^[^/:]+:\d+(\/|$)/.test(url.trim())) return null; // host:port
  return m[1].toLowerCase();
}

/** observe opens web pages: http(s), and `file:` only when asked for. */
function checkScheme(url: string, allowFile: boolean): void {
  const scheme = urlScheme(url);
  if (scheme === null || scheme === 'http' || scheme === 'https') return;
  if (scheme === 'file' && allowFile) return;
  throw new InputError(
    scheme === 'file'
      ? `rmsweb observe: ${url} is a local file; pass --allow-file to open file: URLs`
      : `rmsweb observe: only http(s) pages can be observed, not ${scheme}: URLs`,
    { field: 'url' },
  );
}

/** `rmsweb observe <url>`: the agent's view of a page (text view, or the Observation as JSON). */
export function registerObserve(program: Command): void {
  program
    .command('observe')
    .description("Print the agent's view of a page (elements, text view, screenshot)")
    .argument(
      '<url>',
      'the http(s) page to observe (a bare host gets https://, localhost gets http://; file: needs --allow-file)',
    )
    .option('--json', 'print the Observation as JSON (screenshot data left out)')
    .option('--screenshot <file>', 'write the JPEG screenshot to FILE')
    .option('--no-screenshot', 'take no screenshot')
    .option('--quality <n>', 'JPEG quality, 1-100', '60')
    .option('--viewport <WxH>', 'viewport size', '1280x800')
    .option('--timeout <ms>', 'page load deadline', '15000')
    .option('--browser-ws <url>', 'connect to a remote browser instead of launching Chromium')
    .option('--allow-file', 'allow file: URLs (local files); other non-http(s) schemes are refused')
    .action(async (url: string, raw) => {
      const o = parseOptions(Options, raw, 'observe');
      if (!url.trim()) throw new InputError('rmsweb observe: <url> is empty', { field: 'url' });
      checkScheme(url, o.allowFile);
      const host = await BrowserHost.open(o.browserWs);
      try {
        const env = await host.newEnv({
          viewport: o.viewport,
          navigationTimeoutMs: o.timeout,
          screenshot: { enabled: o.screenshot !== false, quality: o.quality },
        });
        const obs = await env.reset({ startUrl: url });
        if (typeof o.screenshot === 'string' && obs.screenshot?.data) {
          writeFileSync(o.screenshot, Buffer.from(obs.screenshot.data, 'base64'));
        }
        if (o.json) {
          const screenshot = obs.screenshot ? { ...obs.screenshot, data: undefined } : null;
          process.stdout.write(`${JSON.stringify({ ...obs, screenshot }, null, 2)}\n`);
        } else {
          process.stdout.write(`${obs.text}\n`);
          if (typeof o.screenshot === 'string' && obs.screenshot) {
            process.stderr.write(
              `screenshot: ${o.screenshot} (${obs.screenshot.width}x${obs.screenshot.height} JPEG)\n`,
            );
          }
        }
      } finally {
        await host.close();
      }
    });
}

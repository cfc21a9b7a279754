import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { z } from 'zod';
import { startViewer } from '../../viewer/index.ts';
import { fileOption, intOption } from '../options.ts';
import { parseOptions } from '../parse-options.ts';

const Options = z.object({
  port: intOption(0, 65535).default(0),
  critical: z.array(fileOption()).default([]),
  models: z.array(z.string().min(1)).default([]),
  open: z.boolean().default(true),
});

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Best effort: a missing opener (headless machine) is not an error, the URL is printed anyway. */
function openInBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // ignored on purpose, see above
  }
}

/** `rmsweb view runs/DIR`: the run viewer on 127.0.0.1 until Ctrl-C. */
export function registerView(program: Command): void {
  program
    .command('view')
    .description(
      'Open the run viewer (local web UI on 127.0.0.1): tasks and attempts, trajectories as screenshot timelines\n' +
        'with the acted-on element outlined, critical states side by side, RL curves, eval and ablation tables.',
    )
    .argument('<run>', 'run folder')
    .option('--port <n>', 'port on 127.0.0.1 (default: a free one)', '0')
    .option('--critical <file>', 'also show the critical states in this JSONL file (repeatable)', collect)
    .option(
      '--models <dir>',
      'also plot rl-metrics.json / metrics.json found under this folder (repeatable)',
      collect,
    )
    .option('--no-open', 'do not open a browser (it is opened only when stdout is a terminal)')
    .action(async (run: string, raw) => {
      const o = parseOptions(Options, raw, 'view');
      const server = await startViewer({ runDir: run, port: o.port, critical: o.critical, models: o.models });
      process.stdout.write(`rmsweb viewer for ${server.view.name}: ${server.url}\n(Ctrl-C to stop)\n`);
      if (o.open && process.stdout.isTTY) openInBrowser(server.url);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void server.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}

import type { Command } from 'commander';

/**
 * Registers a command whose capability has not landed yet: it appears in `--help` with its
 * summary, and running it says so and exits 2.
 */
export function registerNotLanded(program: Command, name: string, summary: string, issue: string): void {
  program
    .command(name)
    .description(`${summary} [not yet available]`)
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      process.stderr.write(`rmsweb ${name}: not available yet (${issue} has not landed).\n`);
      process.exit(2);
    });
}

import { Command, CommanderError } from 'commander';
import { RmswebError } from '../core/errors.ts';
import { COMMANDS } from './commands/index.ts';

/** Builds the `rmsweb` program with every command of DESIGN.md registered. */
export function buildProgram(): Command {
  const program = new Command('rmsweb')
    .description(
      'Train web agents cheaply by mining their own failures (RMSWeb): collect teacher trajectories with\n' +
        'reflection, export SFT data, mine critical states, run Salvage-DS offline RL, evaluate.',
    )
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)');
  // Before the commands are added, so every subcommand inherits it and usage errors exit 2.
  program.exitOverride();
  for (const register of COMMANDS) register(program);
  return program;
}

/** CLI entry point: parses argv, runs the command, maps errors to exit codes (1 runtime, 2 usage). */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') process.exit(0);
      process.exit(e.exitCode === 1 ? 2 : e.exitCode);
    }
    if (RmswebError.isInstance(e)) {
      process.stderr.write(`rmsweb: ${e.message}\n`);
      process.exit(e.code === 'INPUT' ? 2 : 1);
    }
    process.stderr.write(`rmsweb: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(1);
  }
}

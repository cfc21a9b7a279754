import { Command, CommanderError } from 'commander';
import { RmswebError } from '../core/errors.ts';
import { COMMANDS } from './commands/index.ts';

function rootProgram(): Command {
  const program = new Command('rmsweb')
    .description(
      'Train web agents cheaply by mining their own failures (RMSWeb): collect teacher trajectories with\n' +
        'reflection, export SFT data, mine critical states, run Salvage-DS offline RL, evaluate.\n' +
        "Run `rmsweb <command> --help` for a command's options.",
    )
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)');
  // Before the commands are added, so every subcommand inherits it and usage errors exit 2.
  program.exitOverride();
  return program;
}

/**
 * Builds the `rmsweb` program. With `only`, just that command is loaded (its module and
 * dependencies); without, every command is loaded (tests, help of the whole surface).
 */
export async function buildProgram(only?: string): Promise<Command> {
  const program = rootProgram();
  for (const c of COMMANDS) if (!only || c.name === only) (await c.load())(program);
  return program;
}

/** Root help without loading any command module: names and summaries only. */
function summaryProgram(): Command {
  const program = rootProgram();
  for (const c of COMMANDS)
    program.command(c.name).description(c.summary).allowUnknownOption(true).allowExcessArguments(true);
  return program;
}

/** CLI entry point: parses argv, runs the command, maps errors to exit codes (1 runtime, 2 usage). */
export async function main(argv: string[]): Promise<void> {
  try {
    const name = argv[2];
    const known = COMMANDS.some((c) => c.name === name);
    const program = known ? await buildProgram(name) : summaryProgram();
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (
        e.code === 'commander.helpDisplayed' ||
        e.code === 'commander.version' ||
        e.code === 'commander.help'
      )
        process.exit(0);
      process.exit(e.exitCode === 1 ? 2 : e.exitCode);
    }
    const { status, text } = exitFor(e);
    process.stderr.write(`${text}\n`);
    process.exit(status);
  }
}

/**
 * How an error that reached the top ends the CLI: 2 for bad input (the user's to fix), 1 for any
 * other failure. An error rmsweb raised on purpose prints its message; any other one its stack.
 */
export function exitFor(e: unknown): { status: number; text: string } {
  if (RmswebError.isInstance(e)) return { status: e.code === 'INPUT' ? 2 : 1, text: `rmsweb: ${e.message}` };
  return { status: 1, text: `rmsweb: ${(e as Error)?.stack ?? String(e)}` };
}

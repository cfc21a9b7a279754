import type { z } from 'zod';
import { InputError } from '../core/errors.ts';

/**
 * Validates a command's options with zod (every command parses its options here); the error names
 * the option (`--max-steps`). `flags` names an option whose key is not its flag's camel case.
 */
export function parseOptions<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  command: string,
  flags: Record<string, string> = {},
): z.output<S> {
  const r = schema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const key = String(issue?.path[0] ?? '');
    const flag = flags[key] ?? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    throw new InputError(`rmsweb ${command}: option ${flag}: ${issue?.message}`, { field: flag });
  }
  return r.data;
}

/** Installs a SIGINT handler that aborts the work (which then stops cleanly and stays resumable). */
export function abortOnSigint(what: string): { signal: AbortSignal; dispose(): void } {
  const ctl = new AbortController();
  let hits = 0;
  const handler = () => {
    hits++;
    if (hits > 1) process.exit(130);
    process.stderr.write(
      `\n${what}: interrupted; finishing in-flight work and saving (Ctrl-C again to quit at once). Rerun the same command to resume.\n`,
    );
    ctl.abort();
  };
  process.on('SIGINT', handler);
  return { signal: ctl.signal, dispose: () => process.off('SIGINT', handler) };
}

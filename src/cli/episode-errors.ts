import { RmswebError } from '../core/errors.ts';

/**
 * The error a command ends with when episodes could not be run (model endpoint down, browser
 * lost): exit 1, saying how many, after everything that did run is saved. Those episodes are not
 * in the run (no pass@1, no reflection, no training data) and the same command retries them.
 */
export function episodesNotRun(command: string, errored: number, total?: number): RmswebError {
  const of = total !== undefined ? ` of ${total}` : '';
  const all = total !== undefined && errored >= total ? ' (all of them)' : '';
  return new RmswebError(
    `${command}: ${errored}${of} episode${errored === 1 && !of ? '' : 's'} could not be run${all}: the model endpoint or the browser failed (errors above). ` +
      'They are not counted as failures and are left out of the results; rerun the same command to retry them.',
    { code: 'EPISODES_NOT_RUN', details: { errored, total } },
  );
}

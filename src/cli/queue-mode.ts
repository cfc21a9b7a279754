import { EpisodeQueue } from '../queue/episode-queue.ts';
import type { RunStore } from '../store/run-store.ts';

/** Help text of `--queue` on collect, rollout and eval. */
export const QUEUE_OPTION_HELP =
  'run the episodes on queue workers (`rmsweb worker --redis URL`) instead of in this process: redis://host:port[/db]';

/**
 * Opens the coordinator side of the episode queue for a command. Notes (re-attached jobs,
 * screenshots dropped from big results) go to stderr unless quiet.
 */
export async function openQueueCoordinator(
  url: string,
  store: RunStore,
  o: { quiet?: boolean } = {},
): Promise<EpisodeQueue> {
  const q = await EpisodeQueue.open({
    url,
    store,
    onNote: (m) => {
      if (!o.quiet) process.stderr.write(`${m}\n`);
    },
  });
  if (!o.quiet)
    process.stderr.write(
      `queue: run ${q.runId} on ${url} (queue ${q.queueName}); start workers with \`rmsweb worker --redis ${url}\`\n`,
    );
  return q;
}

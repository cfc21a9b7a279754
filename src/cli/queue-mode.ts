import { EpisodeQueue } from '../queue/episode-queue.ts';
import type { RunStore } from '../store/run-store.ts';

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

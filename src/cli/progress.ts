import cliProgress from 'cli-progress';

/** A progress bar on stderr, shown only when stderr is a terminal (or forced), so stdout stays clean. */
export interface Progress {
  update(done: number, payload?: Record<string, string | number>): void;
  setTotal(total: number): void;
  stop(): void;
}

/**
 * Creates a bar `label [====    ] 12/200 | eta 3m | <extra>`; `extra` is a payload key the caller
 * fills (success rate, loss...). Without a TTY it prints a line every `everyPct` percent instead.
 */
export function createProgress(
  label: string,
  total: number,
  opts: {
    force?: boolean;
    quiet?: boolean;
    everyPct?: number;
    /**
     * Work already done before this process (a resumed run), where the caller knows it: the bar
     * starts there. Without a terminal the rate is measured from the first update whatever it is.
     */
    initial?: number;
  } = {},
): Progress {
  const initial = opts.initial ?? 0;
  if (opts.quiet) return { update() {}, setTotal() {}, stop() {} };
  if (process.stderr.isTTY || opts.force) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {value}/{total} | {percentage}% | eta {eta_formatted} | {extra}`,
        stream: process.stderr,
        hideCursor: true,
        etaBuffer: 20,
        fps: 5,
        // Forced without a terminal (a log file, CI): cli-progress stays silent unless told to
        // write plain lines, one every few seconds.
        noTTYOutput: !process.stderr.isTTY,
        notTTYSchedule: 5000,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, initial, { extra: '' });
    return {
      update: (done, payload) => bar.update(done, { extra: formatPayload(payload) }),
      setTotal: (t) => bar.setTotal(t),
      stop: () => bar.stop(),
    };
  }
  let lastPct = -1;
  let t = total;
  const every = opts.everyPct ?? 10;
  const start = Date.now();
  // The rate is measured from the first update on: a resumed trainer's first report already counts
  // the steps of earlier runs (its resumed step), which `initial` cannot know in advance, and the
  // time before it (loading a model) is no part of the rate either.
  let first: { done: number; at: number } | null = null;
  return {
    update(done, payload) {
      const now = Date.now();
      first ??= { done, at: now };
      const pct = t ? Math.floor((100 * done) / t / every) * every : 100;
      if (pct === lastPct && done !== t) return;
      lastPct = pct;
      const el = (now - start) / 1000;
      const since = done - first.done;
      const eta = since > 0 ? `${(((now - first.at) / 1000 / since) * (t - done)).toFixed(0)}s` : '?';
      process.stderr.write(
        `${label}: ${done}/${t} (${pct}%) elapsed ${el.toFixed(0)}s eta ${eta} ${formatPayload(payload)}\n`,
      );
    },
    setTotal: (n) => {
      t = n;
    },
    stop() {},
  };
}

function formatPayload(p?: Record<string, string | number>): string {
  if (!p) return '';
  return Object.entries(p)
    .map(([k, v]) => `${k} ${typeof v === 'number' ? (Number.isInteger(v) ? v : v.toFixed(3)) : v}`)
    .join(' | ');
}

import { spawnSync } from 'node:child_process';

/** `rmsweb demo --preset tiny --out OUT`, run to its end, with its wall time in seconds. */
export function tinyDemo(out: string): {
  status: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
} {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['bin/rmsweb.js', 'demo', '--preset', 'tiny', '--out', out], {
    encoding: 'utf8',
    // A loaded 2-core machine took 326 s for the whole tiny pipeline.
    timeout: 540_000,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, seconds: (performance.now() - t0) / 1000 };
}

/** The arguments of `rmsweb ablate --preset tiny --seeds 1` from a demo folder. */
export const tinyAblateArgs = (o: { from: string; results: string; out: string }) => [
  'bin/rmsweb.js',
  'ablate',
  '--preset',
  'tiny',
  '--from',
  o.from,
  '--seeds',
  '1',
  '--results',
  o.results,
  '--out',
  o.out,
];

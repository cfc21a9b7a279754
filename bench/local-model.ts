/**
 * A real local model in the RMSWeb loop: the GGUF from scripts/get-local-model.sh (Gemma 3 270M)
 * served by the same server as `rmsweb serve-model`, used by the real CLI as teacher and reflector.
 * Prints prompt and generation tokens/s, seconds per agent step, pass@1 as teacher on N world train
 * tasks without notes (round 0) and with its own reflection notes (round 1, on the tasks round 0
 * failed), and the share of agent replies that needed a repair round.
 *
 *   npm run bench:local-model                 (30 tasks)
 *   npm run bench:local-model -- 10           (tasks)
 *   npm run bench:local-model -- 10 --threads 2 --gguf FILE --keep DIR
 *   npm run bench:local-model -- 30 --max-steps 8   (bounds each episode; default collect's 30)
 *
 * Run it under `nice -n 10` on a shared machine. The collection resumes when rerun with --keep DIR.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LlamaBackend } from '../src/cli/serve-model/llama-backend.ts';
import { ModelServer, statsView } from '../src/cli/serve-model/server.ts';
import { localModelPath, localModelSkipReason } from '../src/cli/serve-model/testing/local-model.ts';
import { REFLECTION_UNUSABLE_RECORD } from '../src/collect/collect.ts';
import { RunStore } from '../src/store/run-store.ts';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const n = Number(args.find((a) => /^\d+$/.test(a)) ?? 30);
const threads = Number(flag('--threads') ?? 1);
const gguf = flag('--gguf') ?? localModelPath();
const keep = flag('--keep');
const maxSteps = flag('--max-steps');
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

if (!flag('--gguf')) {
  const why = localModelSkipReason();
  if (why) {
    console.error(`bench:local-model: ${why}`);
    process.exit(2);
  }
}

const t0 = performance.now();
const backend = await LlamaBackend.open({ gguf, contextSize: 8192, threads });
const loadS = (performance.now() - t0) / 1000;
const server = await ModelServer.start({ backend, port: 0, maxStringLength: 300 });
const dir = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), 'rmsweb-bench-local-model-'));
const spec = `openai:gemma@${server.url}`;
console.log(
  `${backend.modelId}: loaded in ${loadS.toFixed(1)} s, ${threads} thread(s), serving ${server.url}`,
);

function runCli(argv: string[]): Promise<number> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [join(root, 'bin/rmsweb.js'), ...argv], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', rej);
    child.on('exit', (code) => res(code ?? 1));
  });
}

const tCollect = performance.now();
let code: number;
try {
  // The real CLI, unchanged, with the model as teacher and reflector: round 0 has no notes, round 1
  // (only for the tasks round 0 failed) carries the model's own note.
  code = await runCli([
    'collect',
    '--tasks',
    `world:train:${n}`,
    '--teacher',
    spec,
    '--reflector',
    spec,
    '--max-rounds',
    '2',
    '--stop-after',
    '1',
    '--workers',
    '1',
    '--port',
    '0',
    '--quiet',
    ...(maxSteps ? ['--max-steps', maxSteps] : []),
    '--out',
    join(dir, 'collect'),
  ]);
} finally {
  await server.close();
  await backend.close();
}
const collectS = (performance.now() - tCollect) / 1000;

const store = RunStore.open(join(dir, 'collect'));
const all = store.listTrajectories({ tag: 'collect' });
const unusableNotes = store.listRecords(REFLECTION_UNUSABLE_RECORD).length;
const notesWritten = store.listReflections().length;
store.close();
const round0 = all.filter((t) => t.round === 0);
// Round 1 with the model's own note; a round 1 whose reflection was unusable ran without one.
const round1 = all.filter((t) => t.round === 1 && t.notes.length > 0);
const round1NoNote = all.filter((t) => t.round === 1 && t.notes.length === 0);
const steps = all.flatMap((t) => t.steps);
const modelS = steps.map((s) => s.timing.modelMs / 1000);
const repaired = steps.filter((s) => s.repaired).length;
const unrepairable = all.filter((t) => /failed its schema twice/.test(t.endDetail)).length;
const replies = steps.length + unrepairable;
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');
const solved = (ts: typeof all) => ts.filter((t) => t.verdict?.success).length;
const s = statsView(server.stats);

console.log(
  `\nlocal model in the loop: ${backend.modelId}, ${n} world train tasks${maxSteps ? `, at most ${maxSteps} steps an episode` : ''}, collect exit ${code}`,
);
console.log(`collection: ${collectS.toFixed(0)} s wall, ${all.length} episodes, ${steps.length} agent steps`);
console.log(
  `throughput: prompt ${s.promptTokensPerSecond} tok/s (${s.promptTokens - s.cachedPromptTokens} evaluated, ` +
    `${s.cachedPromptTokens} reused from cache), generation ${s.generationTokensPerSecond} tok/s ` +
    `(${s.completionTokens} tokens), over ${s.requests} requests (${s.errors} errors)`,
);
const mean = modelS.reduce((a, b) => a + b, 0) / Math.max(1, modelS.length);
const sorted = [...modelS].sort((a, b) => a - b);
console.log(
  `seconds per agent step (model time, repair included): mean ${mean.toFixed(1)}, median ${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(1)}, ` +
    `max ${(sorted.at(-1) ?? 0).toFixed(1)}; wall per step incl. browser ${(collectS / Math.max(1, steps.length)).toFixed(1)}`,
);
console.log(
  `pass@1 as teacher, no notes (round 0): ${solved(round0)}/${round0.length} = ${pct(solved(round0), round0.length)}`,
);
console.log(
  `with its own reflection notes (round 1, tasks round 0 failed): ${solved(round1)}/${round1.length} = ${pct(solved(round1), round1.length)}`,
);
console.log(
  `reflections: ${notesWritten} notes written, ${unusableNotes} unusable (reply failed its schema twice); ` +
    `round 1 without a note: ${solved(round1NoNote)}/${round1NoNote.length} solved`,
);
console.log(
  `replies needing repair: ${repaired}/${replies} = ${pct(repaired, replies)}; failing twice (episode ended): ${unrepairable}`,
);
const ends = new Map<string, number>();
for (const t of all) ends.set(t.endReason, (ends.get(t.endReason) ?? 0) + 1);
console.log(`episode ends: ${[...ends].map(([k, v]) => `${k} ${v}`).join(', ')}`);
if (!keep) rmSync(dir, { recursive: true, force: true });
else console.log(`run folder: ${join(dir, 'collect')}`);

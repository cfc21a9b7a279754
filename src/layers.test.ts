import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layered module graph (README.md, "Development": each module of `src/` imports only modules
 * listed before it), checked on the source: so nothing imports cli, `rl` and `policy` never reach
 * `browser`, and agents never reach `world` or `judge`. Test files may import helpers of any module.
 */
const ORDER = [
  'core',
  'store',
  'browser',
  'world',
  'models',
  'agent',
  'judge',
  'collect',
  'data',
  'mine',
  'policy',
  'rl',
  'eval',
  'viewer',
  'queue',
  'env',
  'cli',
];
const NEVER: Record<string, string[]> = { rl: ['browser'], policy: ['browser'], agent: ['world', 'judge'] };

const SRC = dirname(fileURLToPath(import.meta.url));

function sources(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|js)$/.test(f) && !/\.test(-helpers)?\.ts$|\.faults\.test\.ts$/.test(f))
    .map((f) => join(SRC, f));
}

/** Every relative import of a file, as the top-level module it lands in. */
function importedModules(file: string): Array<{ spec: string; module: string }> {
  const text = readFileSync(file, 'utf8');
  const out: Array<{ spec: string; module: string }> = [];
  for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g))
    out.push({ spec: m[1], module: relative(SRC, resolve(dirname(file), m[1])).split(/[\\/]/)[0] });
  return out;
}

describe('layered imports', () => {
  it('every import points up the module list, and the never-import rules hold', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(100);
    const broken: string[] = [];
    for (const file of files) {
      const from = relative(SRC, file).split(/[\\/]/)[0];
      if (!ORDER.includes(from)) continue;
      for (const { spec, module } of importedModules(file)) {
        if (module === from || !ORDER.includes(module)) continue;
        if (ORDER.indexOf(module) > ORDER.indexOf(from) || NEVER[from]?.includes(module))
          broken.push(`${relative(SRC, file)} imports ${spec}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { llamaPrefix } from '../llama-backend.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The GGUF the real-model tests use: `RMSWEB_LOCAL_GGUF`, else what scripts/get-local-model.sh assembles. */
export function localModelPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.RMSWEB_LOCAL_GGUF
    ? resolve(env.RMSWEB_LOCAL_GGUF)
    : join(REPO_ROOT, '.local', 'models', 'gemma-3-270m-q4_k_m.gguf');
}

/** Why the real-model tests cannot run here, or null when the model and node-llama-cpp are installed. */
export function localModelSkipReason(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.RMSWEB_SKIP_REAL_MODEL === '1') return 'RMSWEB_SKIP_REAL_MODEL=1';
  const gguf = localModelPath(env);
  if (!existsSync(gguf)) return `no model at ${gguf} (install it: bash scripts/get-local-model.sh)`;
  const lib = join(llamaPrefix(env), 'node_modules', 'node-llama-cpp', 'dist', 'index.js');
  if (!existsSync(lib))
    return `node-llama-cpp missing at ${llamaPrefix(env)} (bash scripts/get-local-model.sh)`;
  return null;
}

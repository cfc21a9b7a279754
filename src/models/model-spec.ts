import { InputError } from '../core/index.ts';

/** The roles a model plays in rmsweb; each can point at its own endpoint through the environment. */
export const MODEL_ROLES = ['teacher', 'judge', 'reflector', 'rewriter', 'student'] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/** A parsed `openai:<model>[@<url>]` spec. */
export interface ModelSpec {
  provider: 'openai';
  model: string;
  /** Base URL given in the spec, e.g. `http://localhost:8000/v1`. */
  baseURL?: string;
}

/**
 * Parses `openai:<model>[@<url>]`. The `@` only separates a URL when an http(s) URL follows it, so
 * model names that contain `@` (some hosted names do) survive.
 */
export function parseModelSpec(spec: string, field = 'model'): ModelSpec {
  const s = spec.trim();
  const m = /^([a-z][a-z0-9-]*):(.+)$/i.exec(s);
  if (!m) {
    throw new InputError(`model spec "${s}" must look like openai:<model>[@<url>], e.g. openai:gpt-4o-mini`, {
      field,
    });
  }
  const provider = m[1].toLowerCase();
  if (provider !== 'openai') {
    throw new InputError(
      `unknown model provider "${m[1]}" in "${s}"; supported: openai (any OpenAI-compatible server)`,
      {
        field,
      },
    );
  }
  let model = m[2];
  let baseURL: string | undefined;
  const at = model.search(/@https?:\/\//i);
  if (at >= 0) {
    baseURL = model.slice(at + 1);
    model = model.slice(0, at);
    try {
      new URL(baseURL);
    } catch {
      throw new InputError(`invalid URL "${baseURL}" in model spec`, { field });
    }
  }
  if (!model) throw new InputError(`model spec "${s}" names no model`, { field });
  return { provider: 'openai', model, ...(baseURL ? { baseURL } : {}) };
}

/** Renders a spec back to its string form (never includes a key). */
export function formatModelSpec(spec: ModelSpec): string {
  return `${spec.provider}:${spec.model}${spec.baseURL ? `@${spec.baseURL}` : ''}`;
}

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Where a request goes and with which key. */
export interface Endpoint {
  baseURL: string;
  apiKey: string | null;
  /** Which source the base URL came from, for diagnostics (never the key). */
  baseURLSource: 'option' | 'spec' | 'role-env' | 'env' | 'default';
}

/**
 * Resolves the endpoint for a role. Precedence for the base URL: explicit option, the spec's
 * `@url`, `RMSWEB_<ROLE>_BASE_URL`, `OPENAI_BASE_URL`, the OpenAI default. For the key: explicit
 * option, `RMSWEB_<ROLE>_API_KEY`, `OPENAI_API_KEY`.
 */
export function resolveEndpoint(opts: {
  role?: ModelRole;
  baseURL?: string;
  apiKey?: string;
  spec?: ModelSpec;
  env?: NodeJS.ProcessEnv;
}): Endpoint {
  const env = opts.env ?? process.env;
  const roleKey = opts.role ? opts.role.toUpperCase() : undefined;
  const roleURL = roleKey ? env[`RMSWEB_${roleKey}_BASE_URL`] : undefined;
  const roleApiKey = roleKey ? env[`RMSWEB_${roleKey}_API_KEY`] : undefined;
  let baseURL: string;
  let baseURLSource: Endpoint['baseURLSource'];
  if (opts.baseURL) [baseURL, baseURLSource] = [opts.baseURL, 'option'];
  else if (opts.spec?.baseURL) [baseURL, baseURLSource] = [opts.spec.baseURL, 'spec'];
  else if (roleURL) [baseURL, baseURLSource] = [roleURL, 'role-env'];
  else if (env.OPENAI_BASE_URL) [baseURL, baseURLSource] = [env.OPENAI_BASE_URL, 'env'];
  else [baseURL, baseURLSource] = [DEFAULT_BASE_URL, 'default'];
  const apiKey = opts.apiKey || roleApiKey || env.OPENAI_API_KEY || null;
  return { baseURL: baseURL.replace(/\/+$/, ''), apiKey, baseURLSource };
}

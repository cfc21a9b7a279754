import { InputError } from '../core/index.ts';

/** A compiled allowlist: `allows(url)` says whether navigating there is permitted. */
export interface Allowlist {
  allows(url: string): boolean;
  /** The patterns, as given. */
  readonly patterns: readonly string[];
}

// Navigations that never reach the network.
const ALWAYS = ['about:', 'data:', 'blob:', 'chrome-error:'];

type Matcher = (u: URL) => boolean;

function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) {
    const base = pattern.slice(2);
    return host === base || host.endsWith(`.${base}`);
  }
  return host === pattern;
}

function compileOne(raw: string, i: number): Matcher {
  const p = raw.trim();
  if (p === '*') return () => true;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p)) {
    let prefix: URL;
    try {
      prefix = new URL(p.replace('://*.', '://wildcard-sub.'));
    } catch {
      throw new InputError(`invalid allowlist entry "${raw}"`, { field: `allowlist.${i}` });
    }
    const wildcard = p.includes('://*.');
    const hostPattern = wildcard ? `*.${prefix.hostname.slice('wildcard-sub.'.length)}` : prefix.hostname;
    const path = prefix.pathname + prefix.search;
    return (u) => {
      if (u.protocol !== prefix.protocol || u.port !== prefix.port || !hostMatches(hostPattern, u.hostname))
        return false;
      const rest = u.pathname + u.search;
      if (!rest.startsWith(path)) return false;
      // `/app` allows `/app`, `/app/x` and `/app?q`, not `/apple`.
      const next = rest.charAt(path.length);
      return path.endsWith('/') || next === '' || next === '/' || next === '?' || next === '#';
    };
  }
  // A bare host, optionally with a port and a path prefix: any scheme.
  const m = /^(\*\.)?([a-z0-9.-]+|\[[0-9a-f:]+\])(?::(\d+))?(\/.*)?$/i.exec(p);
  if (!m) throw new InputError(`invalid allowlist entry "${raw}"`, { field: `allowlist.${i}` });
  const hostPattern = (m[1] ?? '') + m[2].toLowerCase();
  const port = m[3];
  const path = m[4] ?? '/';
  return (u) =>
    (u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'ws:' || u.protocol === 'wss:') &&
    hostMatches(hostPattern, u.hostname) &&
    (port === undefined ||
      u.port === port ||
      (u.port === '' && port === (u.protocol === 'https:' ? '443' : '80'))) &&
    u.pathname.startsWith(path);
}

/**
 * Compiles allowlist patterns. An entry with a scheme is an origin or URL prefix
 * (`http://127.0.0.1:8080`, `https://shop.test/app/`, `https://*.shop.test`); an entry without one is a
 * host on any web scheme (`example.com`, `*.example.com` for subdomains too, `localhost:3000`,
 * `example.com/docs`). `about:`, `data:` and `blob:` URLs are always allowed. An empty or unset
 * list allows everything. Bad entries raise an InputError naming `allowlist.N`.
 */
export function compileAllowlist(patterns: readonly string[] | undefined): Allowlist {
  if (!patterns || patterns.length === 0) return { allows: () => true, patterns: [] };
  const matchers = patterns.map(compileOne);
  return {
    patterns,
    allows(url: string): boolean {
      if (ALWAYS.some((s) => url.startsWith(s))) return true;
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        return false;
      }
      return matchers.some((m) => m(u));
    },
  };
}

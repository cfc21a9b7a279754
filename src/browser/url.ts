/**
 * Completes what a model or a user typed into a URL: `example.com/x` becomes `https://example.com/x`,
 * `localhost:3000` and `127.0.0.1:8080/a` become `http://...`. URLs with a scheme pass unchanged.
 */
export function normalizeUrl(raw: string): string {
  const s = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^(about|data|blob|javascript):/i.test(s)) return s;
  if (/^\/(?!\/)/.test(s)) return s; // a path has no host to complete: left for the caller to reject
  const local = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)(:\d+)?(\/|$|\?|#)/i.test(s);
  return `${local ? 'http' : 'https'}://${s.replace(/^\/\//, '')}`;
}

/** Whether a (normalized) URL can be loaded: it parses, and a web URL names a host. */
export function isLoadableUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return !/^(https?|wss?):$/.test(u.protocol) || u.hostname.length > 0;
  } catch {
    return false;
  }
}

/** Playwright's navigation errors end with ` at URL`; the caller already names the URL. */
export function navigationReason(message: string): string {
  return message.replace(/^page\.(goto|goBack): /, '').replace(/ at \S+$/, '');
}

import { randomBytes } from 'node:crypto';
import { CONTROL_HEADER, SESSION_COOKIE } from '../server.ts';

/** The answer to one request: status, final URL (after redirects), body text. */
export interface HttpResult {
  status: number;
  url: string;
  text: string;
  /** Parsed body when the server answered JSON. */
  json?: unknown;
}

/**
 * A world session over plain HTTP, for page-level tests without a browser: it sends the session
 * cookie, follows 303 redirects like a browser after a form POST, and can read or reset the
 * session's state through the control endpoints.
 */
export class HttpSession {
  readonly id: string;

  constructor(
    readonly origin: string,
    id?: string,
  ) {
    this.id = id ?? `http_${randomBytes(6).toString('hex')}`;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { cookie: `${SESSION_COOKIE}=${this.id}`, ...extra };
  }

  private async follow(res: Response, hops = 0): Promise<HttpResult> {
    if (res.status >= 300 && res.status < 400 && res.headers.get('location') && hops < 5) {
      return this.follow(
        await fetch(new URL(res.headers.get('location')!, this.origin), {
          headers: this.headers(),
          redirect: 'manual',
        }),
        hops + 1,
      );
    }
    const text = await res.text();
    const isJson = res.headers.get('content-type')?.includes('json');
    return { status: res.status, url: res.url, text, json: isJson && text ? JSON.parse(text) : undefined };
  }

  /** GET a path (`/shop/cart`) or URL. */
  async get(path: string): Promise<HttpResult> {
    const res = await fetch(new URL(path, this.origin), { headers: this.headers(), redirect: 'manual' });
    const out = await this.follow(res);
    return { ...out, url: out.url || new URL(path, this.origin).toString() };
  }

  /** POST a urlencoded form; array values repeat the key (checkbox groups). */
  async post(path: string, form: Record<string, string | string[]>): Promise<HttpResult> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
    const res = await fetch(new URL(path, this.origin), {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/x-www-form-urlencoded' }),
      body,
      redirect: 'manual',
    });
    return this.follow(res);
  }

  /** The session's state of one site, as the verifier sees it. */
  async state<S = unknown>(site: string): Promise<S> {
    const res = await fetch(new URL(`/__world/state?site=${site}&session=${this.id}`, this.origin), {
      headers: { [CONTROL_HEADER]: '1' },
    });
    if (!res.ok) throw new Error(`state of ${site}: HTTP ${res.status}`);
    return (await res.json()) as S;
  }
}

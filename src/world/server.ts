import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Task } from '../core/task.ts';
import { esc } from '../core/text.ts';
import type { SiteRequest, SiteResponse } from './site.ts';
import { DEFAULT_WORLD_SEED } from './split.ts';
import { WORLD_JS, worldStyle } from './ui/assets.ts';
import { World } from './world.ts';

/** Header the harness sends to use the control endpoints (state, reset, check). */
export const CONTROL_HEADER = 'x-rmsweb-control';

/** Name of the cookie that binds a browser context to a world session. */
export const SESSION_COOKIE = 'rmsweb_sid';

export interface WorldServerOptions {
  /** Port on 127.0.0.1; 0 picks a free one. */
  port?: number;
  seed?: number;
  /** Reuse an existing World (tests). */
  world?: World;
}

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 1_000_000) throw new Error('request body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseForm(body: string, contentType: string | undefined): Record<string, string | string[]> {
  if (!body) return {};
  if (contentType?.includes('application/json')) {
    const v = JSON.parse(body);
    return typeof v === 'object' && v ? v : {};
  }
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(body)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/**
 * The offline world's HTTP server, on 127.0.0.1 only. Sites live under `/<site>/`; shared assets
 * under `/__assets/`; control endpoints under `/__world/` (health, session reset, state, check),
 * which agents' navigation allowlists block. A session reset may carry a perturbation seed
 * (`POST /__world/reset?session=ID&perturb=N`): that session's pages then vary as a real site's do.
 */
export class WorldServer {
  readonly world: World;
  private readonly server: Server;
  private portNumber = 0;

  private constructor(world: World) {
    this.world = world;
    this.server = createServer((req, res) => {
      this.route(req, res).catch((e) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`Internal error: ${(e as Error).message}`);
      });
    });
    this.server.keepAliveTimeout = 5_000;
  }

  /** Starts a world server; resolves once it listens. */
  static async start(opts: WorldServerOptions = {}): Promise<WorldServer> {
    const ws = new WorldServer(opts.world ?? new World(opts.seed ?? DEFAULT_WORLD_SEED));
    await new Promise<void>((resolve, reject) => {
      ws.server.once('error', reject);
      ws.server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
    });
    ws.portNumber = (ws.server.address() as AddressInfo).port;
    return ws;
  }

  get port(): number {
    return this.portNumber;
  }

  /** Origin, e.g. `http://127.0.0.1:7311`. */
  get url(): string {
    return `http://127.0.0.1:${this.portNumber}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (path === '/__assets/world.js') return send(res, 200, WORLD_JS, 'application/javascript');
    if (path === '/favicon.ico') return send(res, 204, '', 'text/plain');
    const cookies = parseCookies(req.headers.cookie);
    let sessionId = cookies[SESSION_COOKIE];
    const setCookie: string[] = [];
    if (!sessionId) {
      sessionId = `anon_${randomBytes(8).toString('hex')}`;
      setCookie.push(`${SESSION_COOKIE}=${sessionId}; Path=/; SameSite=Lax`);
    }
    if (path.startsWith('/__world/')) return this.control(req, res, url, sessionId);
    if (path === '/' || path === '') return send(res, 200, this.homePage(), 'text/html', setCookie);

    const siteId = path.split('/')[1];
    const site = this.world.sites.get(siteId);
    if (!site) return send(res, 404, notFound(path), 'text/html', setCookie);
    const body = req.method === 'POST' ? await readBody(req) : '';
    // A page load (not a script's fetch) counts as a view: a perturbed promo waits for its view.
    if (req.method === 'GET' && /text\/html/.test(String(req.headers.accept ?? '')))
      this.world.countView(sessionId, siteId);
    const sreq: SiteRequest = {
      method: req.method ?? 'GET',
      path: path.slice(siteId.length + 1) || '/',
      query: url.searchParams,
      form: parseForm(body, req.headers['content-type']),
      headers: req.headers,
      sessionId,
      base: `/${siteId}`,
      ui: this.world.uiState(sessionId, siteId),
      perturb: this.world.perturbation(sessionId),
    };
    const state = this.world.state(sessionId, siteId);
    const out: SiteResponse = await site.handle(sreq, state);
    if (out.delayMs) await new Promise((r) => setTimeout(r, out.delayMs));
    const headers: Record<string, string | string[]> = {
      ...(out.headers ?? {}),
      'cache-control': 'no-store',
    };
    if (setCookie.length) headers['set-cookie'] = setCookie;
    if (out.redirect) {
      res.writeHead(out.status ?? 303, { ...headers, location: out.redirect });
      res.end();
      return;
    }
    if (out.json !== undefined) {
      res.writeHead(out.status ?? 200, { ...headers, 'content-type': 'application/json' });
      res.end(JSON.stringify(out.json));
      return;
    }
    res.writeHead(out.status ?? 200, { ...headers, 'content-type': 'text/html; charset=utf-8' });
    res.end(out.html ?? '');
  }

  private async control(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    cookieSession: string,
  ): Promise<void> {
    const what = url.pathname.slice('/__world/'.length);
    const session = url.searchParams.get('session') ?? cookieSession;
    if (what === 'health') {
      return send(
        res,
        200,
        JSON.stringify({ ok: true, seed: this.world.seed, sites: [...this.world.sites.keys()] }),
        'application/json',
      );
    }
    if (what === 'ui' && req.method === 'POST') {
      const site = url.searchParams.get('site') ?? '';
      const kind = url.searchParams.get('what') === 'promo' ? 'promo' : 'consent';
      if (this.world.sites.has(site)) this.world.markUi(cookieSession, site, kind);
      return send(res, 204, '', 'text/plain');
    }
    // State, reset and check are for the harness only: a browser navigating there (an agent
    // trying to read the verifier's view) does not send this header and is refused.
    if (req.headers[CONTROL_HEADER] !== '1') {
      return send(res, 403, JSON.stringify({ error: 'control endpoint: harness only' }), 'application/json');
    }
    if (what === 'reset' && req.method === 'POST') {
      const raw = url.searchParams.get('perturb') ?? '0';
      const perturb = Number(raw);
      if (!/^\d+$/.test(raw) || perturb > 0xffffffff)
        return send(
          res,
          400,
          JSON.stringify({ error: `perturb must be an integer in [0, 2^32), got "${raw}"` }),
          'application/json',
        );
      this.world.resetSession(session, { perturb });
      return send(res, 200, JSON.stringify({ ok: true, session, perturb }), 'application/json');
    }
    if (what === 'state') {
      const site = url.searchParams.get('site') ?? '';
      if (!this.world.sites.has(site))
        return send(res, 404, JSON.stringify({ error: `unknown site ${site}` }), 'application/json');
      return send(res, 200, JSON.stringify(this.world.state(session, site), setReplacer), 'application/json');
    }
    if (what === 'check' && req.method === 'POST') {
      const body = JSON.parse((await readBody(req)) || '{}');
      const task = Task.safeParse(body.task);
      if (!task.success)
        return send(res, 400, JSON.stringify({ error: 'body.task is not a valid Task' }), 'application/json');
      const verdict = this.world.verify(task.data, String(body.session ?? session), body.answer ?? null);
      return send(res, 200, JSON.stringify(verdict), 'application/json');
    }
    return send(res, 404, JSON.stringify({ error: `unknown control endpoint ${what}` }), 'application/json');
  }

  private homePage(): string {
    const links = [...this.world.sites.values()]
      .map((s) => `<li><a href="/${esc(s.id)}/">${esc(s.title)}</a></li>`)
      .join('');
    return `<!doctype html><html><head><meta charset="utf-8"><title>rmsweb offline world</title>${worldStyle()}</head><body><main class="wrap"><h1>rmsweb offline world</h1><ul>${links}</ul></main></body></html>`;
  }
}

function setReplacer(_k: string, v: unknown): unknown {
  if (v instanceof Set) return [...v];
  if (v instanceof Map) return Object.fromEntries(v);
  return v;
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  type: string,
  setCookie: string[] = [],
): void {
  const headers: Record<string, string | string[]> = { 'content-type': type, 'cache-control': 'no-store' };
  if (setCookie.length) headers['set-cookie'] = setCookie;
  res.writeHead(status, headers);
  res.end(body);
}

function notFound(path: string): string {
  return `<!doctype html><html><head><title>Not found</title>${worldStyle()}</head><body><main class="wrap"><h1>Page not found</h1><p>No page at ${esc(path)}.</p><p><a href="/">Home</a></p></main></body></html>`;
}

import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InputError } from '../core/index.ts';
import { esc } from '../core/text.ts';
import { APP_CSS, APP_JS, FAVICON_SVG } from './assets.ts';
import { layout } from './html.ts';
import { criticalListPage, criticalPairPage } from './pages/critical.ts';
import { curvesPage } from './pages/curves.ts';
import { homePage } from './pages/home.ts';
import { judgeEpisodePage, judgesPage } from './pages/judge.ts';
import { tablesPage } from './pages/tables.ts';
import { taskPage, tasksPage } from './pages/tasks.ts';
import { trajectoryPage } from './pages/trajectory.ts';
import { RunView, type ViewerSources } from './run-view.ts';

/** Options of `startViewer`: what to show and where to listen. */
export interface ViewerOptions extends ViewerSources {
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
}

/** A running viewer. */
export interface ViewerServer {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  port: number;
  view: RunView;
  close(): Promise<void>;
}

// Everything the pages use is served by the viewer itself; the policy makes that a rule.
const CSP =
  "default-src 'none'; img-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

type Page = { title: string; active: string; page: string; body: string } | null;

function route(view: RunView, path: string[], q: URLSearchParams): Page {
  const [head, arg, ...rest] = path;
  if (rest.length) return null;
  const str = (k: string) => q.get(k) || undefined;
  switch (head) {
    case undefined:
      return { title: 'Run', active: 'home', page: 'home', body: homePage(view) };
    case 'tasks':
      if (arg !== undefined) return null;
      return {
        title: 'Tasks',
        active: 'tasks',
        page: 'tasks',
        body: tasksPage(view, {
          site: str('site'),
          outcome: str('outcome'),
          agent: str('agent'),
          tag: str('tag'),
          q: str('q'),
          page: Number(q.get('page')) || 1,
        }),
      };
    case 'task': {
      const body = arg === undefined ? null : taskPage(view, arg);
      return body === null ? null : { title: `Task ${arg}`, active: 'tasks', page: 'task', body };
    }
    case 'trajectory': {
      const body = arg === undefined ? null : trajectoryPage(view, arg);
      return body === null ? null : { title: `Attempt ${arg}`, active: 'tasks', page: 'trajectory', body };
    }
    case 'critical': {
      if (arg === undefined)
        return {
          title: 'Critical states',
          active: 'critical',
          page: 'critical-list',
          body: criticalListPage(view, { label: str('label'), task: str('task') }),
        };
      const body = criticalPairPage(view, arg);
      return body === null
        ? null
        : { title: `Critical state ${arg}`, active: 'critical', page: 'critical', body };
    }
    case 'judges':
      return arg === undefined
        ? { title: 'Judges', active: 'judges', page: 'judges', body: judgesPage(view) }
        : null;
    case 'judge': {
      const body = arg === undefined ? null : judgeEpisodePage(view, arg);
      return body === null ? null : { title: `Judges on ${arg}`, active: 'judges', page: 'judge', body };
    }
    case 'curves':
      return arg === undefined
        ? { title: 'Training curves', active: 'curves', page: 'curves', body: curvesPage(view) }
        : null;
    case 'tables':
      return arg === undefined
        ? { title: 'Evaluation and ablation', active: 'tables', page: 'tables', body: tablesPage(view) }
        : null;
    default:
      return null;
  }
}

/** A response: bytes, or an image file to stream. */
type Reply =
  | { status: number; type: string; body: string; headers?: Record<string, string> }
  | { file: string };

const text = (status: number, body: string, headers?: Record<string, string>): Reply => ({
  status,
  type: 'text/plain; charset=utf-8',
  body,
  headers,
});

function reply(view: RunView, port: number, req: IncomingMessage): Reply {
  // Only this machine's own pages may talk to the viewer (guards against DNS rebinding).
  const host = (req.headers.host ?? '').toLowerCase();
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return text(403, 'forbidden host\n');
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return text(405, 'method not allowed\n', { allow: 'GET, HEAD' });
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  let path: string[];
  try {
    path = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return text(400, 'bad path\n');
  }
  const asset = path.length === 1 ? ASSETS[path[0]] : undefined;
  if (asset) return { status: 200, ...asset };
  if (path[0] === 'img' && path.length === 2) {
    const file = view.imageFile(path[1]);
    return file ? { file } : text(404, 'image not found\n');
  }
  const html = (status: number, title: string, active: string, page: string, body: string): Reply => ({
    status,
    type: 'text/html; charset=utf-8',
    body: layout({ title, runName: view.name, active, page, body }),
    headers: { 'content-security-policy': CSP },
  });
  try {
    const page = route(view, path, url.searchParams);
    if (page) return html(200, page.title, page.active, page.page, page.body);
    const notFound = `<h1>Not found</h1><p>Nothing at <span class="mono">${esc(url.pathname)}</span> in this run.</p><p><a href="/">Back to the run</a></p>`;
    return html(404, 'Not found', '', 'not-found', notFound);
  } catch (e) {
    const msg = `<h1>Could not render this page</h1><div class="warn"><pre>${esc((e as Error).message)}</pre></div>`;
    return html(500, 'Error', '', 'error', msg);
  }
}

const ASSETS: Record<string, { type: string; body: string }> = {
  'app.css': { type: 'text/css; charset=utf-8', body: APP_CSS },
  'app.js': { type: 'text/javascript; charset=utf-8', body: APP_JS },
  'favicon.svg': { type: 'image/svg+xml', body: FAVICON_SVG },
  'favicon.ico': { type: 'image/svg+xml', body: FAVICON_SVG },
};

function handle(view: RunView, port: number, req: IncomingMessage, res: ServerResponse): void {
  const r = reply(view, port, req);
  if ('file' in r) {
    // Images are content-addressed: a hash never changes meaning, so browsers may cache forever.
    res.writeHead(200, {
      'content-type': 'image/jpeg',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') res.end();
    else
      createReadStream(r.file)
        .on('error', () => res.destroy())
        .pipe(res);
    return;
  }
  res.writeHead(r.status, {
    'content-type': r.type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...r.headers,
  });
  res.end(req.method === 'HEAD' ? undefined : r.body);
}

/**
 * Opens the run read-only and serves the viewer on 127.0.0.1. Fails with an InputError when the
 * run folder, a `--critical` file or a `--models` folder is missing, or the port is taken.
 */
export async function startViewer(opts: ViewerOptions): Promise<ViewerServer> {
  const view = RunView.open(opts);
  let port = 0;
  const server: Server = createServer((req, res) => handle(view, port, req, res));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    view.close();
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE' || err.code === 'EACCES') {
      throw new InputError(
        `cannot listen on 127.0.0.1:${opts.port}: ${err.code === 'EADDRINUSE' ? 'port in use' : 'permission denied'}`,
        { field: '--port' },
      );
    }
    throw e;
  }
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    view,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          view.close();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

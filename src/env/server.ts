import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  type ErrorCode,
  ProtocolError,
  parseWireAction,
  type StepResult,
  schemas,
  WsMessage,
} from './protocol.ts';
import type { EnvRuntime } from './runtime.ts';
import { EnvSession, type SessionOptions } from './session.ts';
import { acceptUpgrade, type WsConnection } from './websocket.ts';

/**
 * `rmsweb env serve`: the offline world as an OpenEnv environment. Each WebSocket at `/ws` is one
 * session with its own browser context; sessions are capped (one more is refused with
 * CAPACITY_REACHED, as openenv-core refuses it), idle ones are reaped, and a dropped socket frees
 * its context at once. A malformed message is answered with an error and the session goes on.
 */

export interface EnvServerOptions extends SessionOptions {
  runtime: EnvRuntime;
  /** Interface to bind (default 127.0.0.1: the world and the browser are local-only). */
  host?: string;
  /** Port (default 0: a free one; see `url`). */
  port?: number;
  /** Most concurrent sessions (default 4). */
  sessions?: number;
  /** A session with no message for this long is closed (ms, default 300 s). */
  idleTimeoutMs?: number;
}

interface Live {
  session: EnvSession;
  ws: WsConnection | null;
}

const StepBody = z.object({ action: z.unknown() }).passthrough();

export class EnvServer {
  private readonly http: Server;
  private readonly live = new Map<string, Live>();
  private reaper: NodeJS.Timeout | null = null;
  private address: AddressInfo | null = null;
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
  /** Sessions closed by the reaper, refused for capacity, and dropped by their client (for tests and logs). */
  readonly counts = { reaped: 0, refused: 0, dropped: 0, opened: 0 };

  private constructor(private readonly o: EnvServerOptions) {
    this.maxSessions = o.sessions ?? 4;
    this.idleTimeoutMs = o.idleTimeoutMs ?? 300_000;
    this.http = createServer((req, res) => {
      this.route(req, res).catch((e) => json(res, 500, { detail: (e as Error).message }));
    });
    this.http.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
  }

  /** Starts listening; resolves once bound. */
  static async start(o: EnvServerOptions): Promise<EnvServer> {
    const s = new EnvServer(o);
    await new Promise<void>((resolve, reject) => {
      s.http.once('error', reject);
      s.http.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
    });
    s.address = s.http.address() as AddressInfo;
    const every = Math.min(30_000, Math.max(250, Math.floor(s.idleTimeoutMs / 4)));
    s.reaper = setInterval(() => void s.reap(), every);
    s.reaper.unref();
    return s;
  }

  get port(): number {
    return this.address?.port ?? 0;
  }

  /** `http://127.0.0.1:PORT` (the WebSocket is at `ws://.../ws`). */
  get url(): string {
    const h = this.address?.address ?? '127.0.0.1';
    return `http://${h.includes(':') ? `[${h}]` : h}:${this.port}`;
  }

  /** Sessions open now (WebSocket ones and stateless resets in flight). */
  get activeSessions(): number {
    return this.live.size;
  }

  /** The session whose episode ids start with `id` (`<session id>:<n>`), for tests and diagnostics. */
  session(episodeId: string): EnvSession | null {
    return this.live.get(episodeId.split(':')[0])?.session ?? null;
  }

  async stop(): Promise<void> {
    if (this.reaper) clearInterval(this.reaper);
    for (const l of this.live.values()) l.ws?.close(1001, 'server stopping');
    await Promise.all([...this.live.values()].map((l) => l.session.close()));
    this.live.clear();
    this.http.closeAllConnections();
    await new Promise<void>((r) => this.http.close(() => r()));
    await this.o.runtime.close();
  }

  private open(): EnvSession {
    const session = new EnvSession(this.o.runtime, this.o);
    this.counts.opened++;
    return session;
  }

  private async drop(id: string): Promise<void> {
    const l = this.live.get(id);
    if (!l) return;
    this.live.delete(id);
    await l.session.close();
  }

  private async reap(): Promise<void> {
    const now = Date.now();
    for (const [id, l] of this.live) {
      if (!l.ws || l.session.busy || now - l.session.lastActivity < this.idleTimeoutMs) continue;
      this.counts.reaped++;
      sendError(l.ws, 'SESSION_ERROR', `session idle for ${Math.round(this.idleTimeoutMs / 1000)} s: closed`);
      l.ws.close(1000, 'idle');
      await this.drop(id);
    }
  }

  private upgrade(req: IncomingMessage, socket: import('node:stream').Duplex, head: Buffer): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path !== '/ws') {
      socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n');
      return;
    }
    const ws = acceptUpgrade(req, socket, head);
    if (!ws) return;
    if (this.live.size >= this.maxSessions) {
      this.counts.refused++;
      sendError(
        ws,
        'CAPACITY_REACHED',
        `server at capacity: ${this.live.size} of ${this.maxSessions} sessions in use`,
        {
          active_sessions: this.live.size,
          max_sessions: this.maxSessions,
        },
      );
      ws.close(1013, 'at capacity');
      return;
    }
    const session = this.open();
    this.live.set(session.id, { session, ws });
    // One message at a time per session, in arrival order.
    let chain: Promise<void> = Promise.resolve();
    ws.on('message', (text) => {
      chain = chain.then(async () => {
        const reply = await this.handle(session, text);
        if (reply === 'close') {
          ws.close(1000, 'closed by client');
          await this.drop(session.id);
        } else ws.send(JSON.stringify(reply));
      });
    });
    ws.on('close', () => {
      if (this.live.has(session.id)) this.counts.dropped++;
      void chain.then(() => this.drop(session.id));
      // A dropped socket frees its context now, not after the message in flight.
      void this.drop(session.id);
    });
  }

  private async handle(session: EnvSession, text: string): Promise<object | 'close'> {
    try {
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (e) {
        throw new ProtocolError('INVALID_JSON', `Invalid JSON: ${(e as Error).message}`);
      }
      const m = WsMessage.safeParse(raw);
      if (!m.success)
        throw new ProtocolError('VALIDATION_ERROR', 'a message is an object with a string `type`');
      switch (m.data.type) {
        case 'reset':
          return { type: 'observation', data: await session.reset(m.data.data ?? {}) };
        case 'step':
          return { type: 'observation', data: await session.step(m.data.data) };
        case 'state':
          return { type: 'state', data: session.state() };
        case 'close':
          return 'close';
        default:
          throw new ProtocolError('UNKNOWN_TYPE', `Unknown message type: ${m.data.type}`);
      }
    } catch (e) {
      if (e instanceof ProtocolError) return errorMessage(e.code, e.message, e.details);
      return errorMessage('EXECUTION_ERROR', (e as Error).message);
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const key = `${req.method} ${path}`;
    if (key === 'GET /health') return json(res, 200, { status: 'healthy' });
    if (key === 'GET /metadata')
      return json(res, 200, {
        name: 'rmsweb-world',
        description: "rmsweb's offline web world: resettable sites with programmatic verifiers",
        version: '0.1.0',
      });
    if (key === 'GET /schema') return json(res, 200, schemas());
    if (key === 'GET /state')
      return json(res, 200, {
        episode_id: null,
        step_count: 0,
        active_sessions: this.live.size,
        max_sessions: this.maxSessions,
      });
    if (key === 'POST /reset') return this.statelessReset(req, res);
    if (key === 'POST /step') {
      const body = StepBody.safeParse(await readJson(req, res));
      if (!body.success) return json(res, 422, { detail: 'the body is {"action": {...}}' });
      try {
        parseWireAction(body.data.action);
      } catch (e) {
        return json(res, 422, { detail: (e as ProtocolError).details.errors ?? (e as Error).message });
      }
      // OpenEnv's HTTP step acts on a fresh environment; a browser episode lives in a /ws session.
      return json(res, 409, {
        detail: 'stateless /step has no episode to act in: open a session at /ws (reset, then step)',
      });
    }
    return json(res, 404, { detail: `no route ${key}` });
  }

  /** `POST /reset`: a one-shot session that resets, answers the first observation and closes. */
  private async statelessReset(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, res);
    if (body === INVALID) return;
    if (this.live.size >= this.maxSessions)
      return json(res, 503, { detail: `server at capacity: ${this.maxSessions} sessions in use` });
    const session = this.open();
    this.live.set(session.id, { session, ws: null });
    try {
      const r: StepResult = await session.reset(body ?? {});
      return json(res, 200, r);
    } catch (e) {
      if (e instanceof ProtocolError && e.code === 'VALIDATION_ERROR')
        return json(res, 422, { detail: e.details.errors ?? e.message });
      return json(res, 500, { detail: (e as Error).message });
    } finally {
      await this.drop(session.id);
    }
  }
}

const INVALID = Symbol('invalid');

async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch (e) {
    json(res, 422, { detail: `Invalid JSON: ${(e as Error).message}` });
    return INVALID;
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function errorMessage(code: ErrorCode, message: string, details: Record<string, unknown> = {}): object {
  return { type: 'error', data: { message, code, ...details } };
}

function sendError(
  ws: WsConnection,
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
): void {
  ws.send(JSON.stringify(errorMessage(code, message, details)));
}

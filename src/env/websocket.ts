import { createHash, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type IncomingMessage, request } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * A small WebSocket (RFC 6455) endpoint for the env server and its tests: text messages, fragments,
 * ping/pong and the close handshake; no extensions (a client offering permessage-deflate is answered
 * without it and falls back). The project's dependencies have no WebSocket server, and the protocol's
 * messages are small JSON objects on loopback, so this is all OpenEnv's `/ws` needs.
 */

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** Largest message accepted (an observation with a screenshot is well below). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The Sec-WebSocket-Accept value for a client's key. */
export function acceptKey(key: string): string {
  return createHash('sha1')
    .update(key + GUID)
    .digest('base64');
}

/** One open WebSocket. Emits `message` (text), and `close` (code, reason) once. */
export class WsConnection extends EventEmitter<{ message: [string]; close: [number, string] }> {
  private buf: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private closed = false;
  private closeSent = false;

  constructor(
    private readonly socket: Duplex,
    /** Clients mask their frames; servers do not. */
    private readonly masks: boolean,
    head?: Buffer,
  ) {
    super();
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('close', () => this.finish(1006, 'connection dropped'));
    // The http server's sockets allow half-open connections: a peer that went away only sends FIN.
    socket.on('end', () => {
      socket.end();
      this.finish(1006, 'connection dropped');
    });
    socket.on('error', () => this.finish(1006, 'connection error'));
    // After the caller has had its turn to attach listeners (a server may speak first).
    if (head?.length) setImmediate(() => this.onData(head));
  }

  /** Whether the connection can still send. */
  get open(): boolean {
    return !this.closed && !this.closeSent;
  }

  send(text: string): void {
    if (!this.open) return;
    this.write(0x1, Buffer.from(text, 'utf8'));
  }

  /** Starts the close handshake; the socket ends when the peer answers (or after a second). */
  close(code = 1000, reason = ''): void {
    if (this.closed || this.closeSent) return;
    this.closeSent = true;
    const r = Buffer.from(reason, 'utf8').subarray(0, 120);
    const body = Buffer.alloc(2 + r.length);
    body.writeUInt16BE(code, 0);
    r.copy(body, 2);
    this.write(0x8, body);
    setTimeout(() => this.socket.destroy(), 1_000).unref();
  }

  /** Drops the connection without a handshake (tests: a client that dies). */
  destroy(): void {
    this.socket.destroy();
  }

  private write(opcode: number, payload: Buffer): void {
    const len = payload.length;
    const head: number[] = [0x80 | opcode];
    const maskBit = this.masks ? 0x80 : 0;
    if (len < 126) head.push(maskBit | len);
    else if (len < 65536) head.push(maskBit | 126, len >> 8, len & 0xff);
    else {
      head.push(maskBit | 127);
      const b = Buffer.alloc(8);
      b.writeBigUInt64BE(BigInt(len));
      head.push(...b);
    }
    let body = payload;
    const parts: Buffer[] = [Buffer.from(head)];
    if (this.masks) {
      const key = randomBytes(4);
      body = Buffer.alloc(len);
      for (let i = 0; i < len; i++) body[i] = payload[i] ^ key[i & 3];
      parts.push(key);
    }
    parts.push(body);
    this.socket.write(Buffer.concat(parts));
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    for (;;) {
      if (this.buf.length < 2) return;
      const b0 = this.buf[0];
      const b1 = this.buf[1];
      let len = b1 & 0x7f;
      let off = 2;
      if (len === 126) {
        if (this.buf.length < 4) return;
        len = this.buf.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (this.buf.length < 10) return;
        const big = this.buf.readBigUInt64BE(2);
        if (big > BigInt(MAX_MESSAGE_BYTES)) {
          this.fail(1009, 'message too big');
          return;
        }
        len = Number(big);
        off = 10;
      }
      const masked = (b1 & 0x80) !== 0;
      const need = off + (masked ? 4 : 0) + len;
      if (this.buf.length < need) return;
      let payload = this.buf.subarray(off + (masked ? 4 : 0), need);
      if (masked) {
        const key = this.buf.subarray(off, off + 4);
        const out = Buffer.alloc(len);
        for (let i = 0; i < len; i++) out[i] = payload[i] ^ key[i & 3];
        payload = out;
      }
      this.buf = this.buf.subarray(need);
      this.onFrame((b0 & 0x80) !== 0, b0 & 0x0f, Buffer.from(payload));
      if (this.closed) return;
    }
  }

  private onFrame(fin: boolean, opcode: number, payload: Buffer): void {
    if (opcode === 0x8) {
      const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      const reason = payload.subarray(2).toString('utf8');
      if (!this.closeSent) {
        this.closeSent = true;
        this.write(0x8, payload.subarray(0, 2));
      }
      this.socket.end();
      this.finish(code, reason);
      return;
    }
    if (opcode === 0x9) {
      if (this.open) this.write(0xa, payload);
      return;
    }
    if (opcode === 0xa) return;
    if (opcode === 0x1 || opcode === 0x2 || opcode === 0x0) {
      this.fragments.push(payload);
      const size = this.fragments.reduce((n, f) => n + f.length, 0);
      if (size > MAX_MESSAGE_BYTES) {
        this.fail(1009, 'message too big');
        return;
      }
      if (!fin) return;
      const text = Buffer.concat(this.fragments).toString('utf8');
      this.fragments = [];
      this.emit('message', text);
      return;
    }
    this.fail(1002, `unknown opcode ${opcode}`);
  }

  private fail(code: number, reason: string): void {
    this.close(code, reason);
    this.finish(code, reason);
  }

  private finish(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close', code, reason);
  }
}

/**
 * Completes a server-side upgrade (the `upgrade` event of an http.Server), or answers 400 and
 * returns null when the request is not a WebSocket handshake.
 */
export function acceptUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): WsConnection | null {
  const key = req.headers['sec-websocket-key'];
  if (req.headers.upgrade?.toLowerCase() !== 'websocket' || typeof key !== 'string') {
    socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    return null;
  }
  socket.write(
    [
      'HTTP/1.1 101 Switching Protocols',
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Accept: ${acceptKey(key)}`,
      '',
      '',
    ].join('\r\n'),
  );
  return new WsConnection(socket, false, head);
}

/** Opens a client connection to `ws://127.0.0.1:PORT/path`. */
export function connectWs(url: string, timeoutMs = 10_000): Promise<WsConnection> {
  const u = new URL(url);
  const key = randomBytes(16).toString('base64');
  return new Promise((resolve, reject) => {
    const req = request({
      host: u.hostname,
      port: u.port,
      path: `${u.pathname}${u.search}`,
      timeout: timeoutMs,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Key': key,
        'Sec-WebSocket-Version': '13',
      },
    });
    req.on('upgrade', (res, socket, head) => {
      if (res.headers['sec-websocket-accept'] !== acceptKey(key)) {
        socket.destroy();
        reject(new Error(`bad WebSocket handshake from ${url}`));
        return;
      }
      resolve(new WsConnection(socket, true, head));
    });
    req.on('response', (res) => reject(new Error(`${url} answered ${res.statusCode} instead of upgrading`)));
    req.on('timeout', () => req.destroy(new Error(`connecting to ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

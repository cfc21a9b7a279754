import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  fromAction,
  ProtocolError,
  parseWireAction,
  ResetOptions,
  toAction,
  type WireAction,
} from './protocol.ts';
import { acceptUpgrade, connectWs, type WsConnection } from './websocket.ts';

describe('wire actions', () => {
  it('map to registry actions and back, with the aliases', () => {
    const cases: WireAction[] = [
      { type: 'click', index: 3 },
      { type: 'input', index: 4, text: 'trail shoes', clear: true },
      { type: 'select', index: 7, option: 'Price: low to high' },
      { type: 'scroll', direction: 'up', pages: 1 },
      { type: 'go_back' },
      { type: 'send_keys', keys: 'Enter' },
      { type: 'done', answer: '$34.99' },
    ];
    for (const a of cases) expect(fromAction(toAction(a))).toEqual(a);
    expect(toAction(parseWireAction({ type: 'fill', index: 2, text: 'x' }))).toEqual({
      type: 'input',
      index: 2,
      text: 'x',
      clear: true,
    });
    // OpenEnv's base Action carries `metadata`: accepted and dropped.
    expect(parseWireAction({ type: 'click', index: 1, metadata: {} })).toEqual({ type: 'click', index: 1 });
    expect(toAction(parseWireAction({ type: 'done' }))).toEqual({ type: 'done', text: '', success: true });
  });

  it('refuses malformed actions with a validation error naming the field', () => {
    for (const bad of [{ type: 'click' }, { type: 'click', index: -1 }, { type: 'fly' }, 'click', null]) {
      expect(() => parseWireAction(bad)).toThrow(ProtocolError);
    }
    try {
      parseWireAction({ type: 'click', index: 'x' });
    } catch (e) {
      expect((e as ProtocolError).code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify((e as ProtocolError).details)).toContain('index');
    }
  });

  it('reset options: one way of naming the task, split and index together, no unknown field', () => {
    expect(ResetOptions.safeParse({ task_id: 'a', critical_state_id: 'b' }).success).toBe(false);
    expect(ResetOptions.safeParse({ split: 'train' }).success).toBe(false);
    expect(ResetOptions.safeParse({ taskid: 'a' }).success).toBe(false);
    expect(ResetOptions.parse({ split: 'test', index: 3, seed: 1 })).toMatchObject({
      split: 'test',
      index: 3,
    });
  });
});

describe('the WebSocket endpoint', () => {
  it('echoes small and large messages both ways, answers pings, and closes with a handshake', async () => {
    const http = createServer();
    const closed: number[] = [];
    http.on('upgrade', (req, socket, head) => {
      const ws = acceptUpgrade(req, socket, head);
      ws?.on('message', (m) => ws.send(m));
      ws?.on('close', (code) => closed.push(code));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
    const port = (http.address() as AddressInfo).port;
    const ws: WsConnection = await connectWs(`ws://127.0.0.1:${port}/ws`);
    const echo = (m: string) =>
      new Promise<string>((resolve) => {
        ws.once('message', resolve);
        ws.send(m);
      });
    expect(await echo('{"type":"state"}')).toBe('{"type":"state"}');
    const big = 'é'.repeat(100_000); // 200 kB of UTF-8: the 64-bit length form
    expect(await echo(big)).toBe(big);
    const mid = 'x'.repeat(70_000 - 1);
    expect(await echo(mid)).toBe(mid);
    const bye = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.close(1000, 'done');
    expect(await bye).toBe(1000);
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toEqual([1000]);
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  });
});

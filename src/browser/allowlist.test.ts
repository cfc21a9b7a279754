import { describe, expect, it } from 'vitest';
import { InputError, TargetClosedError, TimeoutError } from '../core/index.ts';
import { compileAllowlist } from './allowlist.ts';
import { toCoreError, withDeadline } from './deadline.ts';
import { parseEnvOptions } from './options.ts';
import { jpegSize } from './screenshot.ts';
import { isLoadableUrl, normalizeUrl } from './url.ts';

describe('compileAllowlist', () => {
  it('allows everything when empty', () => {
    expect(compileAllowlist(undefined).allows('https://anything.test/')).toBe(true);
  });

  it('matches origins and URL prefixes on a path boundary', () => {
    const a = compileAllowlist(['http://127.0.0.1:8080', 'https://shop.test/app']);
    expect(a.allows('http://127.0.0.1:8080/any/path?q=1')).toBe(true);
    expect(a.allows('http://127.0.0.1:8081/')).toBe(false);
    expect(a.allows('https://127.0.0.1:8080/')).toBe(false);
    expect(a.allows('https://shop.test/app')).toBe(true);
    expect(a.allows('https://shop.test/app/cart')).toBe(true);
    expect(a.allows('https://shop.test/apple')).toBe(false);
    expect(a.allows('https://shop.test/')).toBe(false);
  });

  it('matches bare hosts on any web scheme, with subdomain wildcards and ports', () => {
    const a = compileAllowlist(['example.com', '*.docs.test', 'localhost:3000']);
    expect(a.allows('https://example.com/x')).toBe(true);
    expect(a.allows('http://example.com/')).toBe(true);
    expect(a.allows('https://www.example.com/')).toBe(false);
    expect(a.allows('https://api.docs.test/v1')).toBe(true);
    expect(a.allows('https://docs.test/')).toBe(true);
    expect(a.allows('http://localhost:3000/')).toBe(true);
    expect(a.allows('http://localhost:3001/')).toBe(false);
    expect(a.allows('https://evil.test/?u=example.com')).toBe(false);
  });

  it('always allows about:, data: and blob:, and names a bad entry', () => {
    const a = compileAllowlist(['example.com']);
    expect(a.allows('about:blank')).toBe(true);
    expect(a.allows('not a url')).toBe(false);
    expect(() => compileAllowlist(['example.com', 'bad host!'])).toThrow(/allowlist\.1/);
  });
});

describe('normalizeUrl', () => {
  it('adds a scheme: https for hosts, http for local addresses', () => {
    expect(normalizeUrl('example.com/a')).toBe('https://example.com/a');
    expect(normalizeUrl('localhost:3000')).toBe('http://localhost:3000');
    expect(normalizeUrl('127.0.0.1:8080/x')).toBe('http://127.0.0.1:8080/x');
    expect(normalizeUrl(' http://a.test ')).toBe('http://a.test');
    expect(normalizeUrl('about:blank')).toBe('about:blank');
    expect(isLoadableUrl(normalizeUrl('/relative'))).toBe(false);
    expect(isLoadableUrl('http://a.test/')).toBe(true);
  });
});

describe('env options', () => {
  it('fills documented defaults and names a bad field', () => {
    const o = parseEnvOptions({});
    expect(o).toMatchObject({
      viewport: { width: 1280, height: 800 },
      screenshot: { enabled: true, quality: 60 },
      maxElements: 2000,
    });
    expect(() => parseEnvOptions({ screenshot: { quality: 0 } })).toThrow(InputError);
    expect(() => parseEnvOptions({ screenshot: { quality: 0 } })).toThrow(/field screenshot\.quality/);
  });
});

describe('deadlines', () => {
  it('rejects with a TimeoutError that says what was being done', async () => {
    const err: Error = await withDeadline('waiting for the moon', 20, new Promise(() => {})).then(
      () => new Error('resolved'),
      (e: Error) => e,
    );
    expect(TimeoutError.isInstance(err)).toBe(true);
    expect(err.message).toBe('Timeout 20ms exceeded while waiting for the moon');
    await expect(withDeadline('quick', 1000, Promise.resolve(7))).resolves.toBe(7);
  });

  it('maps Playwright errors to core errors', () => {
    const closed = Object.assign(new Error('page.click: Target page, context or browser has been closed'), {
      name: 'TargetClosedError',
    });
    expect(TargetClosedError.isInstance(toCoreError(closed, 'clicking', 10))).toBe(true);
    const pwTimeout = Object.assign(new Error('Timeout 10ms exceeded.\nCall log: ...'), {
      name: 'TimeoutError',
    });
    expect((toCoreError(pwTimeout, 'clicking', 10) as Error).message).toBe(
      'Timeout 10ms exceeded while clicking\n  Timeout 10ms exceeded.',
    );
  });
});

describe('jpegSize', () => {
  it('reads the frame size from the SOF0 marker', () => {
    // SOI, APP0 (length 4), SOF0 (height 600, width 800)
    const bytes = Uint8Array.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x02, 0x58, 0x03, 0x20,
      0x03,
    ]);
    expect(jpegSize(bytes)).toEqual({ width: 800, height: 600 });
    expect(jpegSize(Uint8Array.from([0x89, 0x50, 0x4e, 0x47]))).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { startUrlRisk } from './start-url.ts';

describe('the start-URL check of live tasks', () => {
  it('passes public http(s) URLs, by name or by address, without resolving names', () => {
    for (const url of [
      'https://www.google.com/maps',
      'http://example.com:8080/a?b=c#d',
      'https://93.184.216.34/',
      'https://[2606:2800:220:1:248:1893:25c8:1946]/',
      'https://localhost.example.com/',
      'https://172.32.0.1/',
      'https://192.169.0.1/',
      'https://[::ffff:8.8.8.8]/',
      'about:blank',
    ])
      expect(startUrlRisk(url), url).toBeNull();
  });

  it('refuses schemes other than http and https', () => {
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<b>x</b>',
      'ftp://example.com/',
      'chrome://settings',
      'about:config',
    ])
      expect(startUrlRisk(url)?.kind, url).toBe('scheme');
    expect(startUrlRisk('not a url')?.kind).toBe('invalid');
  });

  it('refuses loopback: names, 127/8, 0/8, ::1', () => {
    for (const url of [
      'http://localhost/',
      'http://LOCALHOST.:3000/',
      'http://app.localhost/',
      'http://127.0.0.1:7311/shop',
      'http://127.1.2.3/',
      'http://2130706433/',
      'http://0x7f000001/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://0.0.0.0:8000/',
      'http://[::1]/',
      'http://[0:0:0:0:0:0:0:1]/',
      'http://[::]/',
      'http://[::ffff:127.0.0.1]/',
    ])
      expect(startUrlRisk(url)?.kind, url).toBe('loopback');
  });

  it('refuses private ranges: 10/8, 172.16/12, 192.168/16, fc00::/7, and their IPv4-mapped forms', () => {
    for (const url of [
      'http://10.0.0.1/',
      'http://10.255.255.255/',
      'http://172.16.0.1/',
      'http://172.31.255.255/',
      'http://192.168.1.1/',
      'http://0xC0A80101/',
      'http://3232235777/',
      'http://[fc00::1]/',
      'http://[fd12:3456::1]/',
      'http://[::ffff:10.1.2.3]/',
      'http://[::ffff:c0a8:101]/',
    ])
      expect(startUrlRisk(url)?.kind, url).toBe('private');
  });

  it('refuses link-local and cloud-metadata addresses in every spelling', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://2852039166/',
      'http://0xA9FEA9FE/',
      'http://0251.0376.0251.0376/',
      'http://169.254.43518/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://METADATA.GOOGLE.INTERNAL./',
      'http://[fd00:ec2::254]/',
    ])
      expect(['metadata', 'link-local', 'private'], url).toContain(startUrlRisk(url)?.kind);
    expect(startUrlRisk('http://2852039166/')?.kind).toBe('metadata');
    expect(startUrlRisk('http://169.254.1.1/')?.kind).toBe('link-local');
    expect(['invalid', 'link-local']).toContain(startUrlRisk('http://[fe80::1%25eth0]/')?.kind);
    expect(startUrlRisk('http://[fe80::1]/')?.kind).toBe('link-local');
    expect(startUrlRisk('http://[febf::1]/')?.kind).toBe('link-local');
  });

  it('says what the address is in its detail', () => {
    expect(startUrlRisk('http://0xA9FEA9FE/')?.detail).toMatch(/169\.254\.169\.254/);
    expect(startUrlRisk('file:///etc/passwd')?.detail).toMatch(/file:/);
  });
});

/**
 * Whether a live task may start at a URL. Task files come from benchmarks and users; a start URL on
 * this machine, its network or the cloud's metadata service would point a browser driven by a
 * model at things that are not the web (a local admin page, credentials at 169.254.169.254, a local
 * file). Decided from the URL alone: no DNS lookup, so a public name is allowed whatever it
 * resolves to (the browser's own allowlist is the guard there), and every spelling of an address
 * counts, since the WHATWG parser normalises numeric IPv4 forms (`http://2852039166/`,
 * `http://0xA9FEA9FE/`) and IPv6 to one text each.
 */

/** Why a start URL is refused. */
export type StartUrlRiskKind = 'invalid' | 'scheme' | 'loopback' | 'private' | 'link-local' | 'metadata';

/** A refused start URL: the kind of place it points at, and a phrase saying so. */
export interface StartUrlRisk {
  kind: StartUrlRiskKind;
  detail: string;
}

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data']);
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200']);

/** The risk of starting a live episode at `url`, or null for a public http(s) URL (or about:blank). */
export function startUrlRisk(url: string): StartUrlRisk | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { kind: 'invalid', detail: 'not a URL' };
  }
  // WebTailBench starts every task on a blank page and lets the agent navigate from there.
  if (u.href === 'about:blank') return null;
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return { kind: 'scheme', detail: `a ${u.protocol} URL (live tasks start on http: or https:)` };
  const host = u.hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[')) return ipv6Risk(host.slice(1, -1));
  const v4 = parseIpv4(host);
  if (v4) return ipv4Risk(v4);
  if (host === 'localhost' || host.endsWith('.localhost'))
    return { kind: 'loopback', detail: `${host}, this machine` };
  if (METADATA_HOSTS.has(host)) return { kind: 'metadata', detail: `${host}, a cloud metadata service` };
  return null;
}

/** Dotted-quad IPv4 (the parser has already normalised every numeric form to it). */
function parseIpv4(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const b = m.slice(1).map(Number);
  return b.every((x) => x <= 255) ? b : null;
}

function ipv4Risk(b: number[]): StartUrlRisk | null {
  const ip = b.join('.');
  const [a, c] = b;
  if (METADATA_V4.has(ip)) return { kind: 'metadata', detail: `${ip}, a cloud metadata address` };
  // 0.0.0.0/8 is "this host": connecting to it reaches local services on Linux.
  if (a === 127 || a === 0) return { kind: 'loopback', detail: `${ip}, this machine` };
  if (a === 169 && c === 254) return { kind: 'link-local', detail: `${ip}, a link-local address` };
  if (a === 10 || (a === 172 && c >= 16 && c <= 31) || (a === 192 && c === 168))
    return { kind: 'private', detail: `${ip}, a private network address` };
  // Shared address space (carrier-grade NAT); cloud-internal services live there too.
  if (a === 100 && c >= 64 && c <= 127) return { kind: 'private', detail: `${ip}, a shared (CGNAT) address` };
  return null;
}

/** Eight 16-bit groups of an IPv6 address as the URL parser prints it (compressed, hex, no zone). */
function parseIpv6(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (s: string) => (s ? s.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? fill !== 0 : fill < 0) return null;
  const all = [...head, ...Array<number>(fill).fill(0), ...tail];
  return all.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? all : null;
}

function ipv6Risk(text: string): StartUrlRisk | null {
  const g = parseIpv6(text);
  if (!g) return { kind: 'invalid', detail: `[${text}], not an IPv6 address` };
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embedded = () => [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff];
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d)
  // addresses reach the embedded IPv4 address: judged as it.
  const v4 =
    (zeros(5) && g[5] === 0xffff) ||
    (zeros(6) && (g[6] !== 0 || g[7] > 1)) ||
    (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0))
      ? embedded()
      : null;
  if (v4) {
    const r = ipv4Risk(v4);
    return r && { ...r, detail: `${r.detail} (as [${text}])` };
  }
  if (zeros(7) && g[7] <= 1) return { kind: 'loopback', detail: `[${text}], this machine` };
  if ((g[0] & 0xffc0) === 0xfe80) return { kind: 'link-local', detail: `[${text}], a link-local address` };
  if ((g[0] & 0xfe00) === 0xfc00)
    return { kind: 'private', detail: `[${text}], a unique local (private) address` };
  return null;
}

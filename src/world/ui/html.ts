import { esc } from '../../core/text.ts';
import { worldStyle } from './assets.ts';

/** Tagged template that leaves nested `html` results and arrays alone; interpolate user data with esc(). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): string {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    out +=
      (Array.isArray(v) ? v.join('') : v === undefined || v === null || v === false ? '' : String(v)) +
      strings[i + 1];
  }
  return out;
}

export interface PageOptions {
  title: string;
  /** Site prefix, e.g. `/shop`. */
  base: string;
  /** Brand name shown in the header. */
  brand: string;
  /** Accent colour of the site. */
  accent: string;
  nav?: Array<{ href: string; label: string }>;
  body: string;
  /** Extra `<head>` content (site CSS). */
  head?: string;
  /** Inline scripts appended at the end of the body. */
  scripts?: string;
  /** Show the site's cookie banner until it is dismissed in this session. */
  cookieBanner?: boolean;
  /** A promo modal that blocks the page until closed. */
  promo?: { title: string; text: string } | null;
  /** Optional content after the header nav (a search bar). */
  headerExtra?: string;
}

/** The common page shell of every world site: header, nav, main, footer, shared CSS and JS. */
export function page(o: PageOptions): string {
  const nav = (o.nav ?? []).map((n) => `<a href="${esc(n.href)}">${esc(n.label)}</a>`).join('');
  const banner = o.cookieBanner
    ? `<div class="cookie-banner" role="dialog" aria-label="Cookie consent"><p>We use cookies to improve your experience and for analytics. You can accept all cookies or manage your choices.</p><div class="cookie-actions"><button type="button" class="btn btn-secondary" data-cookie="manage">Manage choices</button><button type="button" class="btn" data-cookie="accept">Accept all</button></div></div>`
    : '';
  const promo = o.promo
    ? `<div class="modal-backdrop" data-modal="promo"><div class="modal" role="dialog" aria-modal="true" aria-label="${esc(o.promo.title)}"><button type="button" class="modal-close" aria-label="Close">&times;</button><h2>${esc(o.promo.title)}</h2><p>${esc(o.promo.text)}</p><form method="post" action="${esc(o.base)}/__promo"><input type="email" name="email" placeholder="Email address"><button type="submit" class="btn">Subscribe</button></form><button type="button" class="link-btn modal-dismiss">No thanks</button></div></div>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(o.title)}</title>
${worldStyle()}
<style>:root{--accent:${o.accent}}</style>
${o.head ?? ''}
</head><body data-site="${esc(o.base.slice(1))}">
<header class="site-header"><div class="wrap"><a class="brand" href="${esc(o.base)}/">${esc(o.brand)}</a><nav class="site-nav">${nav}</nav>${o.headerExtra ?? ''}</div></header>
<main class="wrap">${o.body}</main>
<footer class="site-footer"><div class="wrap"><span>&copy; 2026 ${esc(o.brand)}</span> <a href="${esc(o.base)}/help">Help</a> <a href="${esc(o.base)}/privacy">Privacy</a></div></footer>
${banner}${promo}
<script src="/__assets/world.js"></script>
${o.scripts ? `<script>${o.scripts}</script>` : ''}
</body></html>`;
}

/** A pagination bar; `href(p)` builds the link of page p (1-based). */
export function pagination(current: number, total: number, href: (p: number) => string): string {
  if (total <= 1) return '';
  const parts: string[] = [];
  if (current > 1)
    parts.push(`<a class="page-link" href="${esc(href(current - 1))}" rel="prev">Previous</a>`);
  for (let p = 1; p <= total; p++) {
    parts.push(
      p === current
        ? `<span class="page-link current" aria-current="page">${p}</span>`
        : `<a class="page-link" href="${esc(href(p))}">${p}</a>`,
    );
  }
  if (current < total)
    parts.push(`<a class="page-link" href="${esc(href(current + 1))}" rel="next">Next</a>`);
  return `<nav class="pagination" aria-label="Pagination">${parts.join('')}</nav>`;
}

/** Formats a price like `$1,299.00`. */
export function money(n: number): string {
  return `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

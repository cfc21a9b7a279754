import { esc } from '../../../core/text.ts';
import type { SiteRequest } from '../../site.ts';
import { page } from '../../ui/html.ts';

export const TRAVEL_BRAND = 'Skyway Travel';

const TRAVEL_CSS = `<style>
.search-box{background:#fff;border:1px solid #e3e6ea;border-radius:10px;padding:18px;max-width:760px}
.form-row{display:flex;gap:12px;flex-wrap:wrap}.form-row .field{flex:1;min-width:160px}
.flight{display:grid;grid-template-columns:1.4fr 1fr 1fr auto;gap:12px;align-items:center;background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:12px;margin-bottom:10px}
.flight .times{font-size:17px;font-weight:600}.hotel{display:grid;grid-template-columns:1fr auto;gap:12px;background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:12px;margin-bottom:10px}
.card h3 a,.hotel h3 a{display:block}.amen{font-size:12px;color:#374151}.good{color:#15803d}.rooms td,.rooms th{vertical-align:top}
</style>`;

/** Renders a travel page: nav, cookie banner (no promo on this site). */
export function travelPage(req: SiteRequest, o: { title: string; body: string }): string {
  return page({
    title: `${o.title} | ${TRAVEL_BRAND}`,
    base: req.base,
    brand: TRAVEL_BRAND,
    accent: '#0b5cad',
    head: TRAVEL_CSS,
    nav: [
      { href: `${req.base}/`, label: 'Flights' },
      { href: `${req.base}/?tab=hotels`, label: 'Hotels' },
      { href: `${req.base}/trips`, label: 'My trips' },
    ],
    body: o.body,
    cookieBanner: !req.ui.consent,
  });
}

/** A labelled field with an optional error, keeping the submitted value. */
export function field(o: {
  id: string;
  name: string;
  label: string;
  value?: string;
  error?: string;
  type?: string;
  attrs?: string;
}): string {
  return `<div class="field${o.error ? ' invalid' : ''}"><label for="${o.id}">${esc(o.label)}</label><input id="${o.id}" name="${o.name}" type="${o.type ?? 'text'}" value="${esc(o.value ?? '')}"${o.attrs ? ` ${o.attrs}` : ''}>${o.error ? `<div class="error">${esc(o.error)}</div>` : ''}</div>`;
}

export function selectField(o: {
  id: string;
  name: string;
  label: string;
  options: Array<[string, string]>;
  value?: string;
  error?: string;
}): string {
  const opts = o.options
    .map(([v, l]) => `<option value="${esc(v)}"${v === o.value ? ' selected' : ''}>${esc(l)}</option>`)
    .join('');
  return `<div class="field${o.error ? ' invalid' : ''}"><label for="${o.id}">${esc(o.label)}</label><select id="${o.id}" name="${o.name}">${opts}</select>${o.error ? `<div class="error">${esc(o.error)}</div>` : ''}</div>`;
}

export function errorPage(req: SiteRequest, title: string, text: string): string {
  return travelPage(req, {
    title,
    body: `<h1>${esc(title)}</h1><p>${esc(text)}</p><p><a href="${req.base}/">Start a new search</a></p>`,
  });
}

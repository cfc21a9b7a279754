import { Rng } from '../src/core/rng.ts';

const WORDS = [
  'trail',
  'runner',
  'merino',
  'shell',
  'pack',
  'lamp',
  'stove',
  'boot',
  'glove',
  'tent',
  'ultra',
  'light',
  'pro',
];

/** A shop-like page with exactly `n` interactive elements: cards of links, buttons, checkboxes, selects. */
export function generatedPage(n: number, seed: number): string {
  const rng = new Rng(seed);
  const name = () => `${rng.pick(WORDS)} ${rng.pick(WORDS)} ${rng.int(1, 999)}`;
  const parts: string[] = [];
  let count = 0;
  const nav = ['Home', 'Deals', 'Cart', 'Account'].map((t) => `<a href="/${t.toLowerCase()}">${t}</a>`);
  parts.push(
    `<header><nav>${nav.join(' ')}</nav><input type="search" name="q" placeholder="Search"></header>`,
  );
  count += nav.length + 1;
  parts.push('<main class="grid">');
  let card = 0;
  while (count < n) {
    const c: string[] = [];
    const left = n - count;
    const title = name();
    c.push(`<a class="title" href="/p/${card}"><span>${title}</span></a>`);
    if (left > 1) c.push(`<button type="button" onclick="this.textContent='Added'">Add to cart</button>`);
    if (left > 2) c.push(`<label><input type="checkbox" name="cmp${card}"> Compare</label>`);
    if (left > 3) c.push(`<span role="button" tabindex="0" class="save">Save</span>`);
    if (left > 4)
      c.push(
        `<select name="qty${card}">${[1, 2, 3, 4].map((q) => `<option>${q}</option>`).join('')}</select>`,
      );
    count += c.length;
    parts.push(
      `<article class="card"><div class="media"><div class="img"></div></div><div class="body">` +
        `<h3>${title}</h3><p class="price">$${rng.int(5, 400)}.${rng.int(10, 99)}</p>` +
        `<p class="desc">${Array.from({ length: 12 }, () => rng.pick(WORDS)).join(' ')}</p>` +
        `<div class="actions">${c.join('')}</div><div class="hidden" style="display:none"><button>Hidden</button></div></div></article>`,
    );
    card++;
  }
  parts.push('</main>');
  const css = `body{font:14px sans-serif;margin:0}header{padding:8px;background:#eee}
.grid{display:grid;grid-template-columns:repeat(4,1fr);gap:8px;padding:8px}
.card{border:1px solid #ccc;padding:6px}.img{height:60px;background:linear-gradient(#abc,#def)}
.actions{display:flex;flex-wrap:wrap;gap:4px}.save{cursor:pointer;color:#06c}`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>Generated ${n}</title><style>${css}</style></head><body>${parts.join('\n')}</body></html>`;
}

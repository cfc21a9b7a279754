import { esc } from '../../../core/text.ts';
import { money } from '../../ui/html.ts';
import { addressLine, fullAddress, type HomesData, type Listing } from './data.ts';
import { listingCard, shortDay } from './pages-search.ts';
import { monthlyPayment } from './search.ts';
import type { HomesState } from './state.ts';

export const TOUR_TIMES = [
  '9:00 AM',
  '9:30 AM',
  '10:00 AM',
  '10:30 AM',
  '11:00 AM',
  '11:30 AM',
  '12:00 PM',
  '12:30 PM',
  '1:00 PM',
  '1:30 PM',
  '2:00 PM',
  '2:30 PM',
  '3:00 PM',
  '3:30 PM',
  '4:00 PM',
  '4:30 PM',
  '5:00 PM',
  '5:30 PM',
];
export const LOAN_TERMS = ['30', '20', '15'];
export const TABS = [
  ['overview', 'Overview'],
  ['history', 'Price history'],
  ['mortgage', 'Mortgage calculator'],
  ['tour', 'Schedule a tour'],
  ['contact', 'Contact agent'],
] as const;

export interface ListingView {
  tab: string;
  notice: string;
  errors: Record<string, string>;
  values: Record<string, string>;
  mortgage: { down: string; rate: string; term: string } | null;
}

function field(
  id: string,
  name: string,
  label: string,
  values: Record<string, string>,
  errors: Record<string, string>,
  type = 'text',
): string {
  return `<div class="field${errors[name] ? ' invalid' : ''}"><label for="${id}">${label}</label><input id="${id}" name="${name}" type="${type}" value="${esc(values[name] ?? '')}">${errors[name] ? `<div class="error">${esc(errors[name])}</div>` : ''}</div>`;
}

function mortgagePanel(base: string, l: Listing, m: ListingView['mortgage']): string {
  const down = m?.down ?? '20';
  const rate = m?.rate ?? '6.5';
  const term = m?.term ?? '30';
  let result = '';
  if (m) {
    const d = Number(down);
    const r = Number(rate);
    result =
      Number.isFinite(d) && d >= 0 && d < 100 && Number.isFinite(r) && r >= 0 && r < 25
        ? `<div class="notice" role="status"><p>Loan amount: ${money(Math.round(l.price * (1 - d / 100)))}</p><p><strong>Estimated monthly payment (principal and interest): ${money(monthlyPayment(l.price, d, r, Number(term))).replace('.00', '')}</strong></p><p class="muted">Property tax, insurance${l.hoa ? ` and the $${l.hoa}/month HOA fee` : ''} are not included.</p></div>`
        : '<div class="alert" role="alert">Enter a down payment from 0 to 99% and an interest rate from 0 to 25%.</div>';
  }
  return `<form method="get" action="${base}/home/${l.id}" class="card"><input type="hidden" name="tab" value="mortgage">
<p>Home price: <strong>${money(l.price).replace('.00', '')}</strong></p>
<div class="row"><div class="field"><label for="m-down">Down payment (%)</label><input id="m-down" name="down" value="${esc(down)}" size="5"></div>
<div class="field"><label for="m-rate">Interest rate (%)</label><input id="m-rate" name="rate" value="${esc(rate)}" size="5"></div>
<div class="field"><label for="m-term">Loan term</label><select id="m-term" name="term">${LOAN_TERMS.map((t) => `<option value="${t}"${t === term ? ' selected' : ''}>${t} years</option>`).join('')}</select></div></div>
<button class="btn" type="submit">Calculate</button></form>${result}`;
}

function tourPanel(base: string, l: Listing, v: ListingView): string {
  const e = v.errors;
  const type = v.values.tourType ?? 'In person';
  return `<form method="post" action="${base}/home/${l.id}/tour" class="card" novalidate><h3>Tour ${esc(addressLine(l))}</h3>
<fieldset><legend>Tour type</legend>${['In person', 'Video chat'].map((t, i) => `<div class="radio-row"><input type="radio" id="t-type-${i}" name="tourType" value="${t}"${t === type ? ' checked' : ''}><label for="t-type-${i}" style="display:inline">${t}</label></div>`).join('')}</fieldset>
<div class="row"><div class="field${e.date ? ' invalid' : ''}"><label for="t-date">Tour date</label><input id="t-date" name="date" data-datepicker data-min="2027-02-01" placeholder="Select date" value="${esc(v.values.date ?? '')}">${e.date ? `<div class="error">${esc(e.date)}</div>` : ''}</div>
<div class="field${e.time ? ' invalid' : ''}"><label for="t-time">Time</label><select id="t-time" name="time"><option value="">Select a time</option>${TOUR_TIMES.map((t) => `<option${t === v.values.time ? ' selected' : ''}>${t}</option>`).join('')}</select>${e.time ? `<div class="error">${esc(e.time)}</div>` : ''}</div></div>
${field('t-name', 'name', 'Full name', v.values, e)}${field('t-email', 'email', 'Email', v.values, e, 'email')}${field('t-phone', 'phone', 'Phone', v.values, e, 'tel')}
<div class="field"><label for="t-msg">Message (optional)</label><textarea id="t-msg" name="message" rows="2" style="width:100%">${esc(v.values.message ?? '')}</textarea></div>
<button class="btn" type="submit">Request tour</button></form>`;
}

function contactPanel(base: string, l: Listing, v: ListingView): string {
  const e = v.errors;
  return `<form method="post" action="${base}/home/${l.id}/contact" class="card" novalidate><h3>Ask ${esc(l.agent.name)} a question</h3>
${field('c-name', 'name', 'Your name', v.values, e)}${field('c-email', 'email', 'Your email', v.values, e, 'email')}${field('c-phone', 'phone', 'Your phone', v.values, e, 'tel')}
<div class="field${e.message ? ' invalid' : ''}"><label for="c-msg">Message</label><textarea id="c-msg" name="message" rows="3" style="width:100%">${esc(v.values.message ?? `I'm interested in ${addressLine(l)}.`)}</textarea>${e.message ? `<div class="error">${esc(e.message)}</div>` : ''}</div>
<button class="btn" type="submit">Send message</button></form>`;
}

/** The price history panel (served separately and loaded after a delay, like slow listing APIs). */
export function historyTable(l: Listing): string {
  return `<table><tr><th>Date</th><th>Event</th><th>Price</th></tr>${[...l.history]
    .reverse()
    .map(
      (h) =>
        `<tr><td>${esc(shortDay(h.date))}</td><td>${esc(h.event)}</td><td>${money(h.price).replace('.00', '')}</td></tr>`,
    )
    .join('')}</table>`;
}

export function listingPage(
  base: string,
  data: HomesData,
  state: HomesState,
  l: Listing,
  v: ListingView,
): string {
  const saved = state.saved.includes(l.id);
  const tab = TABS.some(([id]) => id === v.tab) ? v.tab : 'overview';
  const similar = [
    l.sibling ? data.byId.get(l.sibling) : undefined,
    ...data.listings
      .filter((x) => x.city === l.city && x.id !== l.id && x.type === l.type && x.id !== l.sibling)
      .slice(0, 3),
  ]
    .filter((x): x is Listing => !!x)
    .slice(0, 3);
  const panels: Record<string, string> = {
    overview: `<p>${esc(l.description)}</p><h3>Features</h3><ul>${l.features.map((f) => `<li>${esc(f)}</li>`).join('')}</ul>
<table><tr><th>Home type</th><td>${l.type}</td></tr><tr><th>Year built</th><td>${l.yearBuilt}</td></tr><tr><th>HOA fee</th><td>${l.hoa ? `$${l.hoa}/month` : 'None'}</td></tr><tr><th>Listed</th><td>${esc(shortDay(l.listed))}</td></tr><tr><th>Neighborhood</th><td>${esc(l.neighborhood)}</td></tr></table>`,
    history: `<div data-delayed-src="${base}/home/${l.id}/history" data-delay="1500" aria-busy="true"><p class="spinner">Loading price history...</p></div>`,
    mortgage: mortgagePanel(base, l, v.mortgage),
    tour: tourPanel(base, l, v),
    contact: contactPanel(base, l, v),
  };
  return `<p><a href="${base}/search?city=${encodeURIComponent(l.city)}">&larr; Homes in ${esc(l.city)}</a></p>
${v.notice ? `<div class="notice" role="status">${esc(v.notice)}</div>` : ''}
<h1>${esc(fullAddress(l))}</h1>
<div class="row"><span class="price" style="font-size:24px">${money(l.price).replace('.00', '')}</span><span class="badge">For sale</span>
<form method="post" action="${base}/home/${l.id}/save"><input type="hidden" name="return" value="${base}/home/${l.id}"><button class="btn${saved ? ' btn-secondary' : ''}" type="submit">${saved ? 'Saved - remove' : 'Save home'}</button></form></div>
<div class="facts"><div><strong>${l.beds === 0 ? 'Studio' : l.beds}</strong> ${l.beds === 0 ? '' : 'beds'}</div><div><strong>${l.baths}</strong> baths</div><div><strong>${l.sqft.toLocaleString('en-US')}</strong> sqft</div><div>${l.type}</div><div>Built ${l.yearBuilt}</div></div>
<div class="tabs" role="tablist">${TABS.map(([id, label]) => `<button type="button" role="tab" id="tab-${id}" aria-controls="panel-${id}" aria-selected="${id === tab}">${label}</button>`).join('')}</div>
${TABS.map(([id]) => `<div id="panel-${id}" role="tabpanel" aria-labelledby="tab-${id}" class="${id === tab ? '' : 'hidden'}">${panels[id]}</div>`).join('')}
<div class="card" style="margin-top:16px"><strong>Listed by ${esc(l.agent.name)}</strong>, ${esc(l.agent.brokerage)} &middot; ${esc(l.agent.phone)}</div>
<h2>Similar homes nearby</h2><div class="grid">${similar.map((x) => listingCard(base, x, state.saved.includes(x.id), `${base}/home/${l.id}`)).join('')}</div>`;
}

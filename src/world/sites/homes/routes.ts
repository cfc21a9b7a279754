import { esc } from '../../../core/text.ts';
import type { SiteRequest, SiteResponse } from '../../site.ts';
import { normalizePhone } from '../people.ts';
import { addressLine, CITIES, fullAddress, type HomesData } from './data.ts';
import { historyTable, type ListingView, LOAN_TERMS, listingPage, TOUR_TIMES } from './pages-listing.ts';
import {
  homePage,
  layout,
  RESULTS_PER_PAGE,
  savedPage,
  searchPage,
  shortDay,
  toursPage,
} from './pages-search.ts';
import { parseSearch, runSearch } from './search.ts';
import type { HomesState } from './state.ts';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i;

function one(v: string | string[] | undefined): string {
  return (Array.isArray(v) ? v[0] : (v ?? '')).toString().trim();
}

/** Routes of the listings site. */
export function handleHomes(data: HomesData, req: SiteRequest, state: HomesState): SiteResponse {
  const { base, path, query } = req;
  const html = (title: string, body: string, status = 200): SiteResponse => ({
    status,
    html: layout(base, title, body, req.ui.consent),
  });
  const parts = path.split('/').filter(Boolean);

  if (parts.length === 0) return html('Homes for sale', homePage(base, data, state));

  if (parts[0] === 'go') {
    const place = query.get('place') ?? '';
    const typed = (query.get('q') ?? '').trim();
    const [kind, value] = [place.slice(0, place.indexOf(':')), place.slice(place.indexOf(':') + 1)];
    if (kind === 'city') return { redirect: `${base}/search?city=${encodeURIComponent(value)}` };
    if (kind === 'hood') {
      const [city, hood] = value.split('|');
      return { redirect: `${base}/search?city=${encodeURIComponent(city)}&hood=${encodeURIComponent(hood)}` };
    }
    if (kind === 'home' && data.byId.has(value)) return { redirect: `${base}/home/${value}` };
    return { redirect: `${base}/search?q=${encodeURIComponent(typed)}&unmatched=1` };
  }

  if (parts[0] === 'api' && parts[1] === 'places') {
    const q = (query.get('q') ?? '').toLowerCase().trim();
    if (q.length < 2) return { json: [] };
    const out: Array<{ label: string; value: string }> = [];
    for (const c of CITIES) {
      if (c.name.toLowerCase().startsWith(q))
        out.push({ label: `${c.name}, ${c.state}`, value: `city:${c.name}` });
      for (const h of c.neighborhoods)
        if (h.toLowerCase().startsWith(q))
          out.push({ label: `${h}, ${c.name}`, value: `hood:${c.name}|${h}` });
    }
    for (const l of data.listings)
      if (addressLine(l).toLowerCase().startsWith(q))
        out.push({ label: fullAddress(l), value: `home:${l.id}` });
    return { json: out.slice(0, 8) };
  }

  if (parts[0] === 'search') {
    const p = parseSearch(query);
    const results = runSearch(data, p);
    const pageNo = Math.max(1, Number.parseInt(query.get('page') ?? '1', 10) || 1);
    const notice =
      query.get('unmatched') && p.q
        ? `No location was chosen from the suggestions, so this is a keyword search for "${p.q}" in all locations.`
        : '';
    return html(
      `Homes for sale${p.city ? ` in ${p.city}` : ''}`,
      searchPage(base, p, results, pageNo, state, notice, req.perturb.pageSize(RESULTS_PER_PAGE, 'homes')),
    );
  }

  if (parts[0] === 'home' && parts[1]) {
    const l = data.byId.get(parts[1]);
    if (!l) return html('Not found', '<h1>This home is no longer listed</h1>', 404);
    const view: ListingView = {
      tab: query.get('tab') ?? 'overview',
      notice: '',
      errors: {},
      values: {},
      mortgage: null,
    };
    if (parts[2] === 'history') return { html: historyTable(l), delayMs: 300 };
    if (parts[2] === 'save' && req.method === 'POST') {
      state.saved = state.saved.includes(l.id)
        ? state.saved.filter((x) => x !== l.id)
        : [...state.saved, l.id];
      const ret = one(req.form.return);
      return { redirect: ret.startsWith(`${base}/`) ? ret : `${base}/home/${l.id}` };
    }
    if (parts[2] === 'tour' && req.method === 'POST') {
      const v = {
        tourType: one(req.form.tourType),
        date: one(req.form.date),
        time: one(req.form.time),
        name: one(req.form.name),
        email: one(req.form.email),
        phone: one(req.form.phone),
        message: one(req.form.message),
      };
      const errors: Record<string, string> = {};
      if (!/^\d{4}-\d{2}-\d{2}$/.test(v.date)) errors.date = 'Choose a tour date.';
      else if (v.date < data.today) errors.date = 'Choose a date in the future.';
      if (!TOUR_TIMES.includes(v.time)) errors.time = 'Choose a time.';
      if (!v.name) errors.name = 'Enter your name.';
      if (!EMAIL_RE.test(v.email)) errors.email = 'Enter a valid email address.';
      const phone = normalizePhone(v.phone);
      if (!phone) errors.phone = 'Enter a 10-digit phone number.';
      if (Object.keys(errors).length)
        return html(
          addressLine(l),
          listingPage(base, data, state, l, { ...view, tab: 'tour', errors, values: v }),
          422,
        );
      state.tours.push({
        listingId: l.id,
        tourType: v.tourType === 'Video chat' ? 'Video chat' : 'In person',
        date: v.date,
        time: v.time,
        name: v.name,
        email: v.email.toLowerCase(),
        phone: phone!,
        message: v.message,
      });
      return html(
        addressLine(l),
        listingPage(base, data, state, l, {
          ...view,
          notice: `Tour requested for ${shortDay(v.date)} at ${v.time}. ${l.agent.name} will confirm by email.`,
        }),
      );
    }
    if (parts[2] === 'contact' && req.method === 'POST') {
      const v = {
        name: one(req.form.name),
        email: one(req.form.email),
        phone: one(req.form.phone),
        message: one(req.form.message),
      };
      const errors: Record<string, string> = {};
      if (!v.name) errors.name = 'Enter your name.';
      if (!EMAIL_RE.test(v.email)) errors.email = 'Enter a valid email address.';
      const phone = v.phone ? normalizePhone(v.phone) : '';
      if (phone === null) errors.phone = 'Enter a 10-digit phone number or leave it empty.';
      if (!v.message) errors.message = 'Write a message.';
      if (Object.keys(errors).length)
        return html(
          addressLine(l),
          listingPage(base, data, state, l, { ...view, tab: 'contact', errors, values: v }),
          422,
        );
      state.messages.push({
        listingId: l.id,
        name: v.name,
        email: v.email.toLowerCase(),
        phone: phone ?? '',
        message: v.message,
      });
      return html(
        addressLine(l),
        listingPage(base, data, state, l, { ...view, notice: `Your message was sent to ${l.agent.name}.` }),
      );
    }
    if (view.tab === 'mortgage' && query.has('down')) {
      const term = query.get('term') ?? '30';
      view.mortgage = {
        down: query.get('down') ?? '',
        rate: query.get('rate') ?? '',
        term: LOAN_TERMS.includes(term) ? term : '30',
      };
    }
    return html(addressLine(l), listingPage(base, data, state, l, view));
  }

  if (parts[0] === 'saved') return html('Saved homes', savedPage(base, data, state));
  if (parts[0] === 'tours') return html('Tour requests', toursPage(base, data, state));
  if (parts[0] === 'help' || parts[0] === 'privacy') {
    return html(
      parts[0],
      `<h1>${parts[0] === 'help' ? 'Help' : 'Privacy'}</h1><p>${esc(parts[0] === 'help' ? 'Use filters to narrow your search. Save homes to compare them later.' : 'We share your contact details only with the agent you write to.')}</p>`,
    );
  }
  return html('Not found', '<h1>Page not found</h1>', 404);
}

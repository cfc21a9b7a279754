import { longDate } from '../../../core/dates.ts';
import { esc } from '../../../core/text.ts';
import { money, page } from '../../ui/html.ts';
import type { FormsData, StatusRecord } from './data.ts';
import { type FieldDef, fieldApplies, SERVICES, type ServiceDef } from './services.ts';
import type { FormsState } from './state.ts';

export const BRAND = 'OneGov Services';

const FORMS_CSS = `<style>
.svc-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:14px}.gov-banner{background:#f0f0f0;font-size:12px;padding:4px 16px}
fieldset{border:0;padding:0;margin:0 0 12px}legend{font-size:13px;color:#394150;margin-bottom:4px}.hint{color:#6b7280;font-size:12px;margin:0 0 4px}
.radio-row{display:flex;gap:6px;align-items:center;margin:3px 0}.radio-row label{display:inline;margin:0}.error-summary{border-left:5px solid #b50909;background:#fff4f4;padding:10px 14px;margin-bottom:14px}
.review th{width:45%;font-weight:500;color:#394150}.actions{display:flex;gap:10px;align-items:center;margin-top:16px}
</style>`;

const SHOW_IF_JS = `document.querySelectorAll('[data-show-if]').forEach(function(w){var p=w.getAttribute('data-show-if').split(':');var name=p[0],vals=p[1].split('|');
function sync(){var el=document.querySelector('[name="'+name+'"]:checked')||document.querySelector('select[name="'+name+'"]');var v=el?el.value:'';w.classList.toggle('hidden',vals.indexOf(v)<0);}
document.querySelectorAll('[name="'+name+'"]').forEach(function(i){i.addEventListener('change',sync);});sync();});`;

export function layout(base: string, title: string, body: string, consent: boolean, scripts = ''): string {
  return page({
    title: `${title} | ${BRAND}`,
    base,
    brand: BRAND,
    accent: '#1a4480',
    head: FORMS_CSS,
    nav: [
      { href: `${base}/`, label: 'Services' },
      { href: `${base}/fees`, label: 'Fees' },
      { href: `${base}/status`, label: 'Check status' },
      { href: `${base}/applications`, label: 'My applications' },
    ],
    body: `<div class="gov-banner">An official website of the City of Riverton</div>${body}`,
    cookieBanner: !consent,
    scripts: `${SHOW_IF_JS}${scripts}`,
  });
}

export function homePage(base: string): string {
  const cards = SERVICES.map(
    (s) =>
      `<div class="card"><span class="badge">${esc(s.category)}</span><h3><a href="${base}/services/${s.id}">${esc(s.name)}</a></h3><p class="muted">${esc(s.summary)}</p></div>`,
  ).join('');
  return `<h1>Online services</h1><p>Apply for permits, licenses and benefits online. Most applications take 10 minutes.</p><div class="svc-grid">${cards}</div>
<h2>Other tools</h2><ul><li><a href="${base}/fees">Fee schedule</a></li><li><a href="${base}/status">Check the status of an application</a></li><li><a href="${base}/applications">My applications</a></li></ul>`;
}

export function servicePage(base: string, s: ServiceDef, hasDraft: boolean): string {
  return `<p><a href="${base}/">&larr; All services</a></p><h1>${esc(s.name)}</h1><p>${esc(s.summary)}</p>
<div class="card"><h3>What you need</h3><ul>${s.needs.map((n) => `<li>${esc(n)}</li>`).join('')}</ul><p><strong>Fee:</strong> ${esc(s.fee)}<br><strong>Processing time:</strong> ${esc(s.processing)}</p>
<p>The application has ${s.steps.length} steps and a review page.</p>
<form method="post" action="${base}/apply/${s.id}/start" class="actions"><button class="btn" type="submit">Start application</button>${hasDraft ? `<a class="btn btn-secondary" href="${base}/apply/${s.id}/resume">Continue saved application</a>` : ''}</form></div>`;
}

function fieldHtml(
  f: FieldDef,
  value: string,
  error: string | undefined,
  answers: Record<string, string>,
): string {
  const id = `f-${f.name}`;
  const err = error ? `<div class="error" id="${id}-error">${esc(error)}</div>` : '';
  const hint = f.hint ? `<p class="hint" id="${id}-hint">${esc(f.hint)}</p>` : '';
  const describedBy = [f.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const aria = describedBy ? ` aria-describedby="${describedBy}"` : '';
  let control: string;
  switch (f.kind) {
    case 'select':
      control = `<label for="${id}">${esc(f.label)}</label>${hint}<select id="${id}" name="${f.name}"${aria}><option value="">- Select -</option>${(f.options ?? []).map((o) => `<option${o === value ? ' selected' : ''}>${esc(o)}</option>`).join('')}</select>`;
      break;
    case 'radio':
      control = `<fieldset><legend>${esc(f.label)}</legend>${(f.options ?? []).map((o, i) => `<div class="radio-row"><input type="radio" id="${id}-${i}" name="${f.name}" value="${esc(o)}"${o === value ? ' checked' : ''}><label for="${id}-${i}">${esc(o)}</label></div>`).join('')}</fieldset>`;
      break;
    case 'checkbox':
      control = `<div class="radio-row"><input type="checkbox" id="${id}" name="${f.name}" value="yes"${value === 'Yes' ? ' checked' : ''}><label for="${id}">${esc(f.label)}</label></div>`;
      break;
    case 'textarea':
      control = `<label for="${id}">${esc(f.label)}</label>${hint}<textarea id="${id}" name="${f.name}" rows="3" style="width:100%"${aria}>${esc(value)}</textarea>`;
      break;
    case 'datepicker':
      control = `<label for="${id}">${esc(f.label)}</label><input id="${id}" name="${f.name}" data-datepicker data-min="${f.minDate ?? '2027-01-01'}" placeholder="Select date" value="${esc(value)}"${aria}>`;
      break;
    default:
      control = `<label for="${id}">${esc(f.label)}</label>${hint}<input id="${id}" name="${f.name}" type="${f.kind === 'email' ? 'email' : 'text'}" value="${esc(value)}"${aria} style="width:320px">`;
  }
  const show = f.showIf ? ` data-show-if="${f.showIf.field}:${f.showIf.in.join('|')}"` : '';
  const hidden = f.showIf && !fieldApplies(f, answers) ? ' hidden' : '';
  return `<div class="field${error ? ' invalid' : ''}${hidden}"${show}>${control}${err}</div>`;
}

export function stepPage(
  base: string,
  s: ServiceDef,
  n: number,
  values: Record<string, string>,
  errors: Record<string, string>,
): string {
  const step = s.steps[n - 1];
  const labels = [...s.steps.map((x) => x.title), 'Review'];
  const summary = Object.keys(errors).length
    ? `<div class="error-summary" role="alert"><h2>There is a problem</h2><ul>${Object.entries(errors)
        .map(
          ([k, e]) =>
            `<li><a href="#f-${k}">${esc(step.fields.find((f) => f.name === k)?.label ?? k)}: ${esc(e)}</a></li>`,
        )
        .join('')}</ul></div>`
    : '';
  return `<h1>${esc(s.name)}</h1><div class="steps">${labels.map((l, i) => `<span class="${i === n - 1 ? 'active' : ''}">${i + 1}. ${esc(l)}</span>`).join('')}</div>
<h2>Step ${n} of ${s.steps.length + 1}: ${esc(step.title)}</h2>${summary}
<form method="post" action="${base}/apply/${s.id}/step/${n}" class="card" novalidate>
${step.fields.map((f) => fieldHtml(f, values[f.name] ?? '', errors[f.name], values)).join('')}
<div class="actions"><button class="btn" type="submit" name="action" value="continue">Continue</button><button class="btn btn-secondary" type="submit" name="action" value="save">Save and finish later</button>${n > 1 ? `<a href="${base}/apply/${s.id}/step/${n - 1}">Back</a>` : ''}</div></form>`;
}

/** How a stored answer reads on the review page. */
export function displayValue(f: FieldDef, v: string): string {
  if (f.kind === 'datepicker' && v) return longDate(v);
  if (f.kind === 'money' && v) return money(Number(v));
  return v;
}

export function reviewPage(
  base: string,
  s: ServiceDef,
  answers: Record<string, string>,
  error: string,
): string {
  const sections = s.steps
    .map((step, i) => {
      const rows = step.fields
        .filter((f) => fieldApplies(f, answers))
        .map(
          (f) => `<tr><th>${esc(f.label)}</th><td>${esc(displayValue(f, answers[f.name] ?? ''))}</td></tr>`,
        )
        .join('');
      return `<h3>${esc(step.title)} <a href="${base}/apply/${s.id}/step/${i + 1}" aria-label="Edit ${esc(step.title)}">Edit</a></h3><table class="review">${rows}</table>`;
    })
    .join('');
  return `<h1>${esc(s.name)}</h1><h2>Step ${s.steps.length + 1} of ${s.steps.length + 1}: Review your application</h2>${error ? `<div class="error-summary" role="alert">${esc(error)}</div>` : ''}
<div class="card">${sections}</div>
<form method="post" action="${base}/apply/${s.id}/submit" class="card" style="margin-top:14px">
<div class="radio-row"><input type="checkbox" id="declare" name="declare" value="yes" data-enables="submit-btn"><label for="declare">I declare that the information in this application is true and complete.</label></div>
<div class="actions"><button class="btn" id="submit-btn" type="submit" disabled>Submit application</button><a href="${base}/apply/${s.id}/step/${s.steps.length}">Back</a></div></form>`;
}

export function confirmationPage(base: string, s: ServiceDef, confirmation: string): string {
  return `<div class="notice" role="status"><h1>Application submitted</h1><p>Your confirmation number is <strong>${esc(confirmation)}</strong>.</p></div>
<p>Keep this number to check the status of your ${esc(s.name.toLowerCase())} application. Processing time: ${esc(s.processing)}.</p>
<p><a href="${base}/applications">View my applications</a> &middot; <a href="${base}/">Back to services</a></p>`;
}

export function applicationsPage(base: string, state: FormsState, notice: string): string {
  const submitted = state.submitted.length
    ? `<table><tr><th>Service</th><th>Confirmation number</th></tr>${state.submitted.map((x) => `<tr><td>${esc(SERVICES.find((s) => s.id === x.service)?.name ?? x.service)}</td><td>${esc(x.confirmation)}</td></tr>`).join('')}</table>`
    : '<p class="muted">You have not submitted any applications in this session.</p>';
  const saved = Object.entries(state.drafts).filter(([, d]) => d.saved);
  const savedHtml = saved.length
    ? `<ul>${saved.map(([id]) => `<li><a href="${base}/apply/${id}/resume">Continue ${esc(SERVICES.find((s) => s.id === id)?.name ?? id)}</a></li>`).join('')}</ul>`
    : '<p class="muted">No saved applications.</p>';
  return `<h1>My applications</h1>${notice ? `<div class="notice" role="status">${esc(notice)}</div>` : ''}<h2>Submitted</h2>${submitted}<h2>Saved, not submitted</h2>${savedHtml}`;
}

export function feesPage(base: string, data: FormsData, tab: string): string {
  const cats = [...new Set(data.fees.map((f) => f.category))];
  const active = cats.includes(tab) ? tab : cats[0];
  const tabs = cats
    .map(
      (c, i) =>
        `<button type="button" role="tab" id="tab-${i}" aria-controls="panel-${i}" aria-selected="${c === active}">${esc(c)}</button>`,
    )
    .join('');
  const panels = cats
    .map(
      (c, i) =>
        `<div id="panel-${i}" role="tabpanel" aria-labelledby="tab-${i}" class="${c === active ? '' : 'hidden'}"><table><tr><th>Item</th><th>Fee</th></tr>${data.fees
          .filter((f) => f.category === c)
          .map((f) => `<tr><td>${esc(f.item)}</td><td>${money(f.amount)}</td></tr>`)
          .join('')}</table></div>`,
    )
    .join('');
  return `<h1>Fee schedule</h1><p>Fees effective January 1, 2027. Choose a category.</p><div class="tabs" role="tablist">${tabs}</div>${panels}<p class="muted"><a href="${base}/">Back to services</a></p>`;
}

export function statusPage(
  base: string,
  values: { confirmation: string; last_name: string },
  errors: Record<string, string>,
  result: StatusRecord | null,
  notFound: boolean,
): string {
  const err = (k: string) => (errors[k] ? `<div class="error">${esc(errors[k])}</div>` : '');
  const res = result
    ? `<div class="card" role="status"><h2>${esc(result.service)} - ${esc(result.confirmation)}</h2><p><strong>Status:</strong> ${esc(result.status)}</p><p><strong>Last updated:</strong> ${esc(result.updated)}</p><p>${esc(result.note)}</p></div>`
    : notFound
      ? '<div class="alert" role="alert">We could not find an application with that confirmation number and last name.</div>'
      : '';
  return `<h1>Check application status</h1><p>Enter the confirmation number from your application and the applicant's last name.</p>${res}
<form method="post" action="${base}/status" class="card" novalidate><div class="field${errors.confirmation ? ' invalid' : ''}"><label for="conf">Confirmation number</label><p class="hint">For example BL-2026-123456</p><input id="conf" name="confirmation" value="${esc(values.confirmation)}"></div>${err('confirmation')}
<div class="field${errors.last_name ? ' invalid' : ''}"><label for="ln">Last name</label><input id="ln" name="last_name" value="${esc(values.last_name)}"></div>${err('last_name')}
<button class="btn" type="submit">Check status</button></form>`;
}

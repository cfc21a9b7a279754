import { esc } from '../../../core/text.ts';
import type { SiteRequest, SiteResponse } from '../../site.ts';
import type { FormsData, StatusRecord } from './data.ts';
import {
  applicationsPage,
  confirmationPage,
  feesPage,
  homePage,
  layout,
  reviewPage,
  servicePage,
  statusPage,
  stepPage,
} from './pages.ts';
import { type ServiceDef, service } from './services.ts';
import { confirmationNumber, type FormsState } from './state.ts';
import { validateStep } from './validate.ts';

function one(v: string | string[] | undefined): string {
  return (Array.isArray(v) ? v[0] : (v ?? '')).toString();
}

function draftOf(state: FormsState, id: string) {
  state.drafts[id] ??= { answers: {}, completed: 0, saved: false };
  return state.drafts[id];
}

/** First step whose fields are not all valid yet (the wizard does not let users skip ahead). */
function firstIncomplete(s: ServiceDef, answers: Record<string, string>): number {
  for (let i = 0; i < s.steps.length; i++) {
    if (Object.keys(validateStep(s.steps[i].fields, answers, answers).errors).length) return i + 1;
  }
  return s.steps.length + 1;
}

/** Routes of the government services site. */
export function handleForms(data: FormsData, req: SiteRequest, state: FormsState): SiteResponse {
  const { base, path, query } = req;
  const html = (title: string, body: string, status = 200): SiteResponse => ({
    status,
    html: layout(base, title, body, req.ui.consent),
  });
  const parts = path.split('/').filter(Boolean);

  if (parts.length === 0) return html('Online services', homePage(base));

  if (parts[0] === 'services' && parts[1]) {
    const s = service(parts[1]);
    if (!s) return html('Not found', '<h1>Service not found</h1>', 404);
    return html(s.name, servicePage(base, s, !!state.drafts[s.id]?.saved));
  }

  if (parts[0] === 'apply' && parts[1]) {
    const s = service(parts[1]);
    if (!s) return html('Not found', '<h1>Service not found</h1>', 404);
    const draft = draftOf(state, s.id);
    const action = parts[2];
    if (action === 'start' && req.method === 'POST') {
      state.drafts[s.id] = { answers: {}, completed: 0, saved: false };
      return { redirect: `${base}/apply/${s.id}/step/1` };
    }
    if (action === 'resume') {
      const n = firstIncomplete(s, draft.answers);
      return {
        redirect: n > s.steps.length ? `${base}/apply/${s.id}/review` : `${base}/apply/${s.id}/step/${n}`,
      };
    }
    if (action === 'step') {
      const n = Number(parts[3]);
      if (!Number.isInteger(n) || n < 1 || n > s.steps.length)
        return html('Not found', '<h1>Step not found</h1>', 404);
      if (n > draft.completed + 1) return { redirect: `${base}/apply/${s.id}/step/${draft.completed + 1}` };
      const fields = s.steps[n - 1].fields;
      if (req.method === 'POST') {
        const input: Record<string, string> = {};
        for (const f of fields) input[f.name] = one(req.form[f.name]);
        if (one(req.form.action) === 'save') {
          Object.assign(draft.answers, input);
          draft.saved = true;
          return { redirect: `${base}/applications?notice=saved` };
        }
        const { values, errors } = validateStep(fields, input, draft.answers);
        if (Object.keys(errors).length)
          return html(`Error: ${s.name}`, stepPage(base, s, n, { ...draft.answers, ...input }, errors), 422);
        for (const f of fields) delete draft.answers[f.name];
        Object.assign(draft.answers, values);
        draft.completed = Math.max(draft.completed, n);
        return {
          redirect:
            n === s.steps.length ? `${base}/apply/${s.id}/review` : `${base}/apply/${s.id}/step/${n + 1}`,
        };
      }
      return html(`${s.name}: step ${n}`, stepPage(base, s, n, draft.answers, {}));
    }
    if (action === 'review') {
      if (draft.completed < s.steps.length)
        return { redirect: `${base}/apply/${s.id}/step/${draft.completed + 1}` };
      return html(`Review: ${s.name}`, reviewPage(base, s, draft.answers, ''));
    }
    if (action === 'submit' && req.method === 'POST') {
      const missing = firstIncomplete(s, draft.answers);
      if (missing <= s.steps.length) return { redirect: `${base}/apply/${s.id}/step/${missing}` };
      if (one(req.form.declare) !== 'yes')
        return html(
          `Review: ${s.name}`,
          reviewPage(base, s, draft.answers, 'You must accept the declaration before submitting.'),
          422,
        );
      const seq = state.submitted.length + 1;
      const confirmation = confirmationNumber(s.prefix, req.sessionId, seq);
      state.submitted.push({ service: s.id, confirmation, answers: { ...draft.answers }, seq });
      delete state.drafts[s.id];
      return { redirect: `${base}/confirmation/${confirmation}` };
    }
    return html('Not found', '<h1>Page not found</h1>', 404);
  }

  if (parts[0] === 'confirmation' && parts[1]) {
    const sub = state.submitted.find((x) => x.confirmation === parts[1]);
    const s = sub && service(sub.service);
    if (!sub || !s) return html('Not found', '<h1>Confirmation not found</h1>', 404);
    return html('Application submitted', confirmationPage(base, s, sub.confirmation));
  }

  if (parts[0] === 'applications') {
    return html(
      'My applications',
      applicationsPage(
        base,
        state,
        query.get('notice') === 'saved'
          ? 'Your application was saved. You can finish it later from this page.'
          : '',
      ),
    );
  }

  if (parts[0] === 'fees') return html('Fee schedule', feesPage(base, data, query.get('tab') ?? ''));

  if (parts[0] === 'status') {
    if (req.method !== 'POST')
      return html(
        'Check application status',
        statusPage(base, { confirmation: '', last_name: '' }, {}, null, false),
      );
    const values = {
      confirmation: one(req.form.confirmation).trim().toUpperCase(),
      last_name: one(req.form.last_name).trim(),
    };
    const errors: Record<string, string> = {};
    if (!/^[A-Z]{2,3}-\d{4}-\d{6}$/.test(values.confirmation))
      errors.confirmation = 'Enter a confirmation number like BL-2026-123456.';
    if (!values.last_name) errors.last_name = 'Enter the last name on the application.';
    if (Object.keys(errors).length)
      return html('Check application status', statusPage(base, values, errors, null, false), 422);
    state.lookups.push(values.confirmation);
    const own = state.submitted.find((x) => x.confirmation === values.confirmation);
    const ownRecord: StatusRecord | undefined =
      own && (own.answers.last_name ?? '').toLowerCase() === values.last_name.toLowerCase()
        ? {
            confirmation: own.confirmation,
            lastName: own.answers.last_name,
            service: service(own.service)?.name ?? own.service,
            status: 'Received',
            updated: 'today',
            note: 'We have your application and will start the review soon.',
          }
        : undefined;
    const rec =
      ownRecord ??
      data.statuses.find(
        (r) =>
          r.confirmation === values.confirmation &&
          r.lastName.toLowerCase() === values.last_name.toLowerCase(),
      );
    return html('Check application status', statusPage(base, values, {}, rec ?? null, !rec));
  }

  if (parts[0] === 'help' || parts[0] === 'privacy') {
    return html(
      parts[0] === 'help' ? 'Help' : 'Privacy',
      `<h1>${parts[0] === 'help' ? 'Help' : 'Privacy'}</h1><p>${esc(parts[0] === 'help' ? 'Call 311 or visit a service center for help with applications.' : 'We only use your information to process your application.')}</p>`,
    );
  }
  return html('Not found', '<h1>Page not found</h1>', 404);
}

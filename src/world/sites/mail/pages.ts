import { esc } from '../../../core/text.ts';
import { worldStyle } from '../../ui/assets.ts';
import { page, pagination } from '../../ui/html.ts';
import { LABELS } from './content.ts';
import type { Folder, MailData, Message } from './data.ts';
import { type MailState, type OutgoingMessage, unreadCount } from './state.ts';

export const PAGE_SIZE = 20;

const FOLDER_TITLES: Record<Folder, string> = {
  inbox: 'Inbox',
  sent: 'Sent',
  drafts: 'Drafts',
  archive: 'Archive',
  spam: 'Spam',
  trash: 'Trash',
};

const MAIL_CSS = `<style>
.mail{display:grid;grid-template-columns:210px 1fr;gap:18px}.mail aside{background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:12px;height:fit-content}
.mail aside a{display:flex;justify-content:space-between;padding:5px 8px;border-radius:6px;text-decoration:none;color:#1d2330}.mail aside a.active{background:#e8f0fe;font-weight:600}
.mail aside h3{font-size:12px;text-transform:uppercase;color:#6b7280;margin:14px 0 4px}.compose-btn{display:block;text-align:center;margin-bottom:12px}
.msgs td{padding:6px 8px;vertical-align:top}.msgs tr.unread a.row-link{font-weight:700}.row-link{display:flex;gap:10px;text-decoration:none;color:#1d2330}
.row-link .from{width:180px;flex:none;overflow:hidden;white-space:nowrap;text-overflow:ellipsis}.row-link .snip{color:#6b7280;font-weight:400}.row-link .when{margin-left:auto;flex:none;color:#6b7280}
.star{border:0;background:none;cursor:pointer;font-size:17px;color:#b7791f}.msg-body p{margin:0 0 10px}.attach a{margin-right:12px}.doc{background:#fff;border:1px solid #c9ced6;padding:28px;max-width:640px;font-family:Georgia,serif}
</style>`;

/** Formats a message date for lists: "Jan 28" this year, "Dec 3, 2026" otherwise. */
export function shortDate(iso: string): string {
  const d = new Date(iso);
  const opts: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric', timeZone: 'UTC' };
  if (d.getUTCFullYear() !== 2027) opts.year = 'numeric';
  return d.toLocaleDateString('en-US', opts);
}

export function longDate(iso: string): string {
  return new Date(iso).toLocaleString('en-US', {
    weekday: 'short',
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone: 'UTC',
  });
}

export interface ShellOptions {
  base: string;
  title: string;
  active: string;
  body: string;
  state: MailState;
  data: MailData;
  q?: string;
  promo?: boolean;
  scripts?: string;
}

/** The webmail shell: search bar, sidebar with folders, labels and unread counts. */
export function shell(o: ShellOptions): string {
  const folderLink = (f: Folder) => {
    const n = f === 'inbox' || f === 'spam' ? unreadCount(o.data, o.state, f) : 0;
    return `<a href="${o.base}/folder/${f}" class="${o.active === f ? 'active' : ''}">${FOLDER_TITLES[f]}${n ? `<span class="badge">${n}</span>` : ''}</a>`;
  };
  const aside = `<aside><a class="btn compose-btn" href="${o.base}/compose">Compose</a>
${(['inbox', 'sent', 'drafts', 'archive', 'spam', 'trash'] as Folder[]).map(folderLink).join('')}
<a href="${o.base}/starred" class="${o.active === 'starred' ? 'active' : ''}">Starred</a>
<h3>Labels</h3>${LABELS.map((l) => `<a href="${o.base}/label/${encodeURIComponent(l)}" class="${o.active === `label:${l}` ? 'active' : ''}">${esc(l)}</a>`).join('')}
</aside>`;
  const search = `<form class="row" method="get" action="${o.base}/search" role="search"><label for="q" class="hidden">Search mail</label><input id="q" name="q" type="search" placeholder="Search mail" aria-label="Search mail" value="${esc(o.q ?? '')}" style="width:340px"><button class="btn" type="submit">Search</button></form>`;
  return page({
    title: `${o.title} - Postbox`,
    base: o.base,
    brand: 'Postbox',
    accent: '#c5221f',
    nav: [{ href: `${o.base}/settings`, label: 'Settings' }],
    headerExtra: search,
    head: MAIL_CSS,
    body: `<div class="mail">${aside}<section>${o.body}</section></div>`,
    promo: o.promo
      ? {
          title: 'Try Postbox Premium',
          text: 'Get 50 GB of storage, custom domains and an ad-free inbox. First month free.',
        }
      : null,
    scripts: o.scripts,
  });
}

/** A page of messages with the bulk-action toolbar (the "Mark all as read" lookalike sits beside "Mark as read"). */
export function messageList(o: {
  base: string;
  heading: string;
  messages: Message[];
  page: number;
  href: (p: number) => string;
  returnTo: string;
  allFolder: Folder;
  notice?: string;
  empty: string;
  /** Messages a page (default PAGE_SIZE; a perturbed visit may use another). */
  pageSize?: number;
}): string {
  const size = o.pageSize ?? PAGE_SIZE;
  const total = Math.max(1, Math.ceil(o.messages.length / size));
  const p = Math.min(Math.max(1, o.page), total);
  const slice = o.messages.slice((p - 1) * size, p * size);
  const first = (p - 1) * size + 1;
  const rows = slice
    .map((m) => {
      const who =
        m.folder === 'sent' || m.folder === 'drafts'
          ? `To: ${m.to.map((t) => t.name).join(', ') || '(no recipient)'}`
          : m.from.name;
      const snip = m.body.find((l) => l.length > 12 && !/^(hi|hey|hello)\b/i.test(l)) ?? '';
      return `<tr class="${m.read ? '' : 'unread'}">
<td><input type="checkbox" name="ids" value="${m.id}" aria-label="Select: ${esc(who)} - ${esc(m.subject)}"></td>
<td><button type="submit" class="star" formaction="${o.base}/message/${m.id}/action" name="action" value="${m.starred ? 'unstar' : 'star'}" aria-label="${m.starred ? 'Unstar' : 'Star'}: ${esc(m.subject)}">${m.starred ? '&#9733;' : '&#9734;'}</button></td>
<td style="width:100%"><a class="row-link" href="${o.base}/message/${m.id}"><span class="from">${esc(who)}</span><span><span class="subj">${esc(m.subject)}</span> <span class="snip">- ${esc(snip.slice(0, 70))}</span></span>${m.labels.map((l) => `<span class="badge">${esc(l)}</span>`).join('')}${m.attachments.length ? '<span aria-label="Has attachment">&#128206;</span>' : ''}<span class="when">${shortDate(m.date)}</span></a></td></tr>`;
    })
    .join('');
  return `<h1>${esc(o.heading)}</h1>${o.notice ? `<div class="notice" role="status">${esc(o.notice)}</div>` : ''}
<form method="post" action="${o.base}/bulk"><input type="hidden" name="return" value="${esc(o.returnTo)}"><input type="hidden" name="scope" value="${o.allFolder}">
<div class="toolbar"><button class="btn btn-secondary" name="action" value="archive">Archive</button><button class="btn btn-secondary" name="action" value="delete">Delete</button>
<button class="btn btn-secondary" name="action" value="read">Mark as read</button><button class="btn btn-secondary" name="action" value="unread">Mark as unread</button>
<button class="btn btn-secondary" name="action" value="allread" title="Marks every message in ${FOLDER_TITLES[o.allFolder]} as read">Mark all as read</button>
<span class="muted">${o.messages.length ? `${first}-${first + slice.length - 1} of ${o.messages.length}` : ''}</span></div>
${slice.length ? `<table class="msgs">${rows}</table>` : `<p class="muted">${esc(o.empty)}</p>`}
</form>${pagination(p, total, o.href)}`;
}

function labelControls(_base: string, m: Message): string {
  const have = m.labels
    .map(
      (l) =>
        `<span class="badge">${esc(l)} <button type="submit" class="link-btn" form="act" name="unlabel" value="${esc(l)}" aria-label="Remove label ${esc(l)}">&times;</button></span>`,
    )
    .join(' ');
  const options = LABELS.filter((l) => !m.labels.includes(l))
    .map((l) => `<option>${esc(l)}</option>`)
    .join('');
  return `<div class="row">${have}<label for="label-pick" style="margin:0">Label as</label><select id="label-pick" name="label" form="act"><option value="">Choose label</option>${options}</select><button class="btn btn-secondary" type="submit" form="act" name="action" value="label">Apply label</button></div>`;
}

/** One message with its actions, attachments (opening in a new tab) and labels. */
export function messageView(base: string, m: Message): string {
  const actions: string[] = [
    `<a class="btn" href="${base}/compose?reply=${m.id}">Reply</a>`,
    `<a class="btn btn-secondary" href="${base}/compose?forward=${m.id}">Forward</a>`,
  ];
  const act = (value: string, label: string) =>
    `<button class="btn btn-secondary" type="submit" form="act" name="action" value="${value}">${label}</button>`;
  if (m.folder === 'spam') actions.push(act('notspam', 'Not spam'));
  else if (m.folder === 'archive' || m.folder === 'trash') actions.push(act('inbox', 'Move to Inbox'));
  else if (m.folder === 'inbox') actions.push(act('archive', 'Archive'));
  if (m.folder !== 'trash') actions.push(act('delete', 'Delete'));
  actions.push(act('unread', 'Mark as unread'));
  actions.push(act(m.starred ? 'unstar' : 'star', m.starred ? 'Unstar' : 'Star'));
  const attachments = m.attachments.length
    ? `<div class="attach"><h3>${m.attachments.length} attachment${m.attachments.length > 1 ? 's' : ''}</h3>${m.attachments.map((a, i) => `<a href="${base}/attachment/${m.id}/${i}" target="_blank" rel="noopener">${esc(a.name)}</a> <span class="muted">(${esc(a.size)})</span>`).join(' ')}</div>`
    : '';
  return `<form id="act" method="post" action="${base}/message/${m.id}/action"></form>
<p><a href="${base}/folder/${m.folder}">&larr; Back to ${FOLDER_TITLES[m.folder]}</a></p>
<h1>${esc(m.subject)}</h1>
<div class="row">${actions.join('')}</div>
<div class="card" style="margin-top:12px"><p><strong>${esc(m.from.name)}</strong> &lt;${esc(m.from.email)}&gt;<br><span class="muted">to ${esc(m.to.map((t) => t.name).join(', ') || 'undisclosed recipients')} &middot; ${esc(longDate(m.date))}</span></p>
<div class="msg-body">${m.body.map((l) => `<p>${esc(l)}</p>`).join('')}</div>${attachments}</div>
<div style="margin-top:12px">${labelControls(base, m)}</div>`;
}

export interface ComposeValues {
  toText: string;
  to: string;
  cc: string;
  subject: string;
  body: string;
  inReplyTo: string;
  forwardOf: string;
}

/** The compose form; the To field needs a contact picked from the autocomplete (or a full address). */
export function composeForm(
  base: string,
  v: ComposeValues,
  errors: Record<string, string>,
  attachments: OutgoingMessage['attachments'],
): string {
  const err = (k: string) => (errors[k] ? `<div class="error" id="${k}-error">${esc(errors[k])}</div>` : '');
  const cls = (k: string) => `field${errors[k] ? ' invalid' : ''}`;
  return `<h1>${v.inReplyTo ? 'Reply' : v.forwardOf ? 'Forward' : 'New message'}</h1>
${Object.keys(errors).length ? '<div class="alert" role="alert">Please fix the problems below.</div>' : ''}
<form method="post" action="${base}/send" class="card">
<input type="hidden" name="inReplyTo" value="${esc(v.inReplyTo)}"><input type="hidden" name="forwardOf" value="${esc(v.forwardOf)}">
<div class="${cls('to')}"><label for="to-input">To</label><div class="ac-wrap"><input id="to-input" name="to_text" autocomplete="off" data-autocomplete="${base}/api/contacts?q=" data-target="to-value" value="${esc(v.toText)}" placeholder="Type a name or email" style="width:100%"><input type="hidden" id="to-value" name="to" value="${esc(v.to)}"></div>${err('to')}</div>
<div class="field"><label for="cc">Cc</label><input id="cc" name="cc" value="${esc(v.cc)}" style="width:100%"></div>
<div class="${cls('subject')}"><label for="subject">Subject</label><input id="subject" name="subject" value="${esc(v.subject)}" style="width:100%">${err('subject')}</div>
<div class="${cls('body')}"><label for="body">Message</label><textarea id="body" name="body" rows="10" style="width:100%">${esc(v.body)}</textarea>${err('body')}</div>
${attachments.length ? `<p class="muted">Attached: ${attachments.map((a) => esc(a.name)).join(', ')}</p>` : ''}
<div class="row"><button class="btn" type="submit" name="action" value="send">Send</button><button class="btn btn-secondary" type="submit" name="action" value="draft">Save draft</button><a href="${base}/folder/inbox">Discard</a></div>
</form>`;
}

/** Settings with two tabs: signature and the vacation responder (date pickers). */
export function settingsPage(
  base: string,
  state: MailState,
  tab: string,
  errors: Record<string, string>,
  notice: string,
  values?: Record<string, string>,
): string {
  const v = state.settings.vacation;
  const val = (k: string, d: string) => esc(values?.[k] ?? d);
  const err = (k: string) => (errors[k] ? `<div class="error">${esc(errors[k])}</div>` : '');
  const on = (values?.enabled ?? (v.enabled ? 'on' : 'off')) === 'on';
  const vac = tab === 'vacation';
  return `<h1>Settings</h1>${notice ? `<div class="notice" role="status">${esc(notice)}</div>` : ''}
${Object.keys(errors).length ? '<div class="alert" role="alert">Please fix the problems below.</div>' : ''}
<div class="tabs" role="tablist"><button type="button" role="tab" id="tab-general" aria-controls="panel-general" aria-selected="${!vac}">General</button><button type="button" role="tab" id="tab-vacation" aria-controls="panel-vacation" aria-selected="${vac}">Vacation responder</button></div>
<div id="panel-general" role="tabpanel" aria-labelledby="tab-general" class="${vac ? 'hidden' : ''}"><form method="post" action="${base}/settings/signature" class="card">
<div class="field"><label for="signature">Signature</label><textarea id="signature" name="signature" rows="4" style="width:100%">${val('signature', state.settings.signature)}</textarea><p class="muted">Added to the end of every message you send.</p></div>
<button class="btn" type="submit">Save changes</button></form></div>
<div id="panel-vacation" role="tabpanel" aria-labelledby="tab-vacation" class="${vac ? '' : 'hidden'}"><form method="post" action="${base}/settings/vacation" class="card">
<div class="field"><input type="radio" id="vac-off" name="enabled" value="off" ${on ? '' : 'checked'}> <label for="vac-off" style="display:inline">Vacation responder off</label><br>
<input type="radio" id="vac-on" name="enabled" value="on" ${on ? 'checked' : ''}> <label for="vac-on" style="display:inline">Vacation responder on</label></div>
<div class="row"><div class="field"><label for="vac-start">First day</label><input id="vac-start" name="start" data-datepicker data-min="2027-02-01" value="${val('start', v.start)}" placeholder="Select date">${err('start')}</div>
<div class="field"><label for="vac-end">Last day</label><input id="vac-end" name="end" data-datepicker data-min="2027-02-01" value="${val('end', v.end)}" placeholder="Select date">${err('end')}</div></div>
<div class="field"><label for="vac-subject">Subject</label><input id="vac-subject" name="subject" value="${val('subject', v.subject)}" style="width:100%"></div>
<div class="field"><label for="vac-message">Message</label><textarea id="vac-message" name="message" rows="4" style="width:100%">${val('message', v.message)}</textarea>${err('message')}</div>
<button class="btn" type="submit">Save changes</button></form></div>`;
}

/** An attachment opened in its own tab: a simple document viewer. */
export function attachmentPage(name: string, lines: string[]): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(name)}</title>${worldStyle()}</head>
<body><main class="wrap" style="padding-top:20px"><p class="muted">${esc(name)} &middot; Preview</p><div class="doc">${lines.map((l, i) => (i === 0 ? `<h2>${esc(l)}</h2>` : `<p>${esc(l)}</p>`)).join('')}</div></main></body></html>`;
}

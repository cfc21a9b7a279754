import { esc } from '../../../core/text.ts';
import type { SiteRequest, SiteResponse } from '../../site.ts';
import { page } from '../../ui/html.ts';
import { LABELS } from './content.ts';
import { FOLDERS, type Folder, type MailData, type Message } from './data.ts';
import {
  attachmentPage,
  type ComposeValues,
  composeForm,
  messageList,
  messageView,
  PAGE_SIZE,
  settingsPage,
  shell,
} from './pages.ts';
import { allMessages, findMessage, inFolder, type MailState, patch, searchMessages } from './state.ts';

const EMAIL_RE = /^[^\s@<>]+@[^\s@<>]+\.[a-z]{2,}$/i;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

function one(v: string | string[] | undefined): string {
  return (Array.isArray(v) ? v[0] : (v ?? '')).toString();
}

function many(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** Only same-site relative returns, so a form cannot redirect elsewhere. */
function safeReturn(base: string, v: string): string {
  return v.startsWith(`${base}/`) && !v.startsWith('//') ? v : `${base}/folder/inbox`;
}

function quote(m: Message): string {
  return `\n\nOn ${m.date.slice(0, 10)}, ${m.from.name} <${m.from.email}> wrote:\n${m.body.map((l) => `> ${l}`).join('\n')}`;
}

function withSignature(state: MailState, body: string): string {
  return state.settings.signature ? `\n\n-- \n${state.settings.signature}${body}` : body;
}

/** Routes of the webmail site. */
export function handleMail(data: MailData, req: SiteRequest, state: MailState): SiteResponse {
  const { base, path, query } = req;
  const promo = !req.ui.promoSeen && !state.promoSubscribed;
  const shellFor = (
    title: string,
    active: string,
    body: string,
    extra: { q?: string; promo?: boolean } = {},
  ) => ({
    html: shell({ base, title, active, body, state, data, ...extra }),
  });
  const pageNo = Math.max(1, Number.parseInt(query.get('page') ?? '1', 10) || 1);
  const notice = query.get('notice') ?? '';
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);

  if (path === '/' || path === '') return { redirect: `${base}/folder/inbox` };

  if (parts[0] === 'folder' && parts.length === 2 && req.method === 'GET') {
    const f = parts[1] as Folder;
    if (!FOLDERS.includes(f)) return { status: 404, ...shellFor('Not found', '', '<h1>No such folder</h1>') };
    const title = f.charAt(0).toUpperCase() + f.slice(1);
    const body = messageList({
      base,
      heading: title,
      messages: inFolder(data, state, f),
      page: pageNo,
      href: (p) => `${base}/folder/${f}?page=${p}`,
      returnTo: `${base}/folder/${f}?page=${pageNo}`,
      allFolder: f,
      notice: noticeText(notice),
      empty: `No messages in ${title}.`,
      // Folder lists follow the visit's perturbation; search results keep their size.
      pageSize: req.perturb.pageSize(PAGE_SIZE, 'mail.folder'),
    });
    return shellFor(title, f, body, { promo });
  }

  if ((parts[0] === 'label' && parts.length === 2) || parts[0] === 'starred') {
    const label = parts[1];
    const starred = parts[0] === 'starred';
    if (!starred && !LABELS.includes(label))
      return { status: 404, ...shellFor('Not found', '', '<h1>No such label</h1>') };
    const msgs = allMessages(data, state).filter(
      (m) => m.folder !== 'trash' && m.folder !== 'spam' && (starred ? m.starred : m.labels.includes(label)),
    );
    const href = (p: number) =>
      starred ? `${base}/starred?page=${p}` : `${base}/label/${encodeURIComponent(label)}?page=${p}`;
    const body = messageList({
      base,
      heading: starred ? 'Starred' : label,
      messages: msgs,
      page: pageNo,
      href,
      returnTo: href(pageNo),
      allFolder: 'inbox',
      notice: noticeText(notice),
      empty: 'Nothing here yet.',
    });
    return shellFor(starred ? 'Starred' : label, starred ? 'starred' : `label:${label}`, body);
  }

  if (parts[0] === 'search') {
    const q = (query.get('q') ?? '').trim();
    const msgs = searchMessages(data, state, q);
    const href = (p: number) => `${base}/search?q=${encodeURIComponent(q)}&page=${p}`;
    const body = messageList({
      base,
      heading: q ? `Search results for "${q}"` : 'Search',
      messages: msgs,
      page: pageNo,
      href,
      returnTo: href(pageNo),
      allFolder: 'inbox',
      notice: noticeText(notice),
      empty: q ? `No messages matched "${q}".` : 'Type something to search your mail.',
    });
    return shellFor(`Search: ${q}`, '', body, { q, promo });
  }

  if (parts[0] === 'message' && parts[1]) {
    const m = findMessage(data, state, parts[1]);
    if (!m) return { status: 404, ...shellFor('Not found', '', '<h1>Message not found</h1>') };
    if (parts[2] === 'action' && req.method === 'POST') return messageAction(base, data, state, m, req.form);
    if (!m.read && data.byId.has(m.id)) patch(state, m.id, { read: true });
    return shellFor(m.subject, m.folder, messageView(base, findMessage(data, state, m.id)!));
  }

  if (parts[0] === 'bulk' && req.method === 'POST') return bulk(base, data, state, req.form);

  if (parts[0] === 'attachment' && parts.length === 3) {
    const m = findMessage(data, state, parts[1]);
    const a = m?.attachments[Number(parts[2])];
    if (!a) return { status: 404, html: attachmentPage('Not found', ['Attachment not found']) };
    return { html: attachmentPage(a.name, a.preview) };
  }

  if (parts[0] === 'compose' && req.method === 'GET') {
    const v: ComposeValues = {
      toText: '',
      to: '',
      cc: '',
      subject: '',
      body: withSignature(state, ''),
      inReplyTo: '',
      forwardOf: '',
    };
    let attachments: Message['attachments'] = [];
    const reply = query.get('reply');
    const fwd = query.get('forward');
    const src = reply ? findMessage(data, state, reply) : fwd ? findMessage(data, state, fwd) : undefined;
    if (src && reply) {
      const who = src.folder === 'sent' ? src.to[0] : src.from;
      Object.assign(v, {
        toText: who ? `${who.name} <${who.email}>` : '',
        to: who?.email ?? '',
        subject: src.subject.startsWith('Re:') ? src.subject : `Re: ${src.subject}`,
        body: withSignature(state, quote(src)),
        inReplyTo: src.id,
      });
    } else if (src && fwd) {
      Object.assign(v, {
        subject: src.subject.startsWith('Fwd:') ? src.subject : `Fwd: ${src.subject}`,
        body: withSignature(
          state,
          `\n\n---------- Forwarded message ----------\nFrom: ${src.from.name} <${src.from.email}>\nSubject: ${src.subject}\n\n${src.body.join('\n')}`,
        ),
        forwardOf: src.id,
      });
      attachments = src.attachments;
    }
    return shellFor('Compose', '', composeForm(base, v, {}, attachments));
  }

  if (parts[0] === 'send' && req.method === 'POST') return send(base, data, state, req.form);

  if (parts[0] === 'api' && parts[1] === 'contacts') {
    const q = (query.get('q') ?? '').toLowerCase().trim();
    const hits =
      q.length < 1
        ? []
        : data.contacts.filter(
            (c) =>
              c.name
                .toLowerCase()
                .split(' ')
                .some((w) => w.startsWith(q)) ||
              c.name.toLowerCase().startsWith(q) ||
              c.email.startsWith(q),
          );
    return { json: hits.slice(0, 8).map((c) => ({ label: `${c.name} <${c.email}>`, value: c.email })) };
  }

  if (parts[0] === 'settings') {
    if (req.method === 'POST' && parts[1] === 'signature') {
      state.settings.signature = one(req.form.signature).trim();
      return { redirect: `${base}/settings?tab=general&notice=saved` };
    }
    if (req.method === 'POST' && parts[1] === 'vacation') return saveVacation(base, data, state, req.form);
    const body = settingsPage(
      base,
      state,
      query.get('tab') ?? 'general',
      {},
      notice === 'saved' ? 'Your settings have been saved.' : '',
    );
    return shellFor('Settings', 'settings', body);
  }

  if (parts[0] === '__promo' && req.method === 'POST') {
    state.promoSubscribed = true;
    return { redirect: `${base}/folder/inbox?notice=subscribed` };
  }

  if (parts[0] === 'help' || parts[0] === 'privacy') {
    const text =
      parts[0] === 'help'
        ? 'Use the search bar to find mail by sender, subject or words in the message. Select messages with the checkboxes to archive, delete or mark them as read.'
        : 'Postbox does not read your mail to show ads.';
    return shellFor(
      parts[0] === 'help' ? 'Help' : 'Privacy',
      '',
      `<h1>${parts[0] === 'help' ? 'Help' : 'Privacy'}</h1><p>${esc(text)}</p>`,
    );
  }
  return {
    status: 404,
    html: page({
      title: 'Not found',
      base,
      brand: 'Postbox',
      accent: '#c5221f',
      body: '<h1>Page not found</h1>',
    }),
  };
}

function noticeText(code: string): string {
  const map: Record<string, string> = {
    sent: 'Your message has been sent.',
    draft: 'Draft saved.',
    archived: 'Conversation archived.',
    deleted: 'Moved to Trash.',
    read: 'Marked as read.',
    unread: 'Marked as unread.',
    allread: 'All messages marked as read.',
    notspam: 'Message moved to Inbox.',
    subscribed: 'Thanks for subscribing!',
    none: 'Select at least one message first.',
    inbox: 'Moved to Inbox.',
  };
  return map[code] ?? '';
}

function messageAction(
  base: string,
  data: MailData,
  state: MailState,
  m: Message,
  form: SiteRequest['form'],
): SiteResponse {
  const action = one(form.action);
  const ret = form.return ? safeReturn(base, one(form.return)) : null;
  if (!data.byId.has(m.id)) return { redirect: ret ?? `${base}/message/${m.id}` };
  const unlabel = one(form.unlabel);
  if (unlabel) {
    patch(state, m.id, { labels: m.labels.filter((l) => l !== unlabel) });
    return { redirect: `${base}/message/${m.id}` };
  }
  switch (action) {
    case 'archive':
      patch(state, m.id, { folder: 'archive' });
      return { redirect: ret ?? `${base}/folder/${m.folder}?notice=archived` };
    case 'delete':
      patch(state, m.id, { folder: 'trash' });
      return { redirect: ret ?? `${base}/folder/${m.folder}?notice=deleted` };
    case 'notspam':
    case 'inbox':
      patch(state, m.id, { folder: 'inbox' });
      return { redirect: ret ?? `${base}/message/${m.id}` };
    case 'unread':
      patch(state, m.id, { read: false });
      return { redirect: ret ?? `${base}/folder/${m.folder}?notice=unread` };
    case 'star':
    case 'unstar':
      patch(state, m.id, { starred: action === 'star' });
      return { redirect: ret ?? `${base}/message/${m.id}` };
    case 'label': {
      const label = one(form.label);
      if (LABELS.includes(label) && !m.labels.includes(label))
        patch(state, m.id, { labels: [...m.labels, label] });
      return { redirect: `${base}/message/${m.id}` };
    }
    default:
      return { redirect: `${base}/message/${m.id}` };
  }
}

function bulk(base: string, data: MailData, state: MailState, form: SiteRequest['form']): SiteResponse {
  const action = one(form.action);
  const ret = safeReturn(base, one(form.return));
  const join = (url: string, code: string) => `${url}${url.includes('?') ? '&' : '?'}notice=${code}`;
  if (action === 'allread') {
    const scope = one(form.scope) as Folder;
    const folder = FOLDERS.includes(scope) ? scope : 'inbox';
    for (const m of inFolder(data, state, folder))
      if (!m.read && data.byId.has(m.id)) patch(state, m.id, { read: true });
    state.events.push(`allread:${folder}`);
    return { redirect: join(ret, 'allread') };
  }
  const ids = many(form.ids).filter((id) => data.byId.has(id));
  if (!ids.length) return { redirect: join(ret, 'none') };
  const change = {
    archive: { folder: 'archive' },
    delete: { folder: 'trash' },
    read: { read: true },
    unread: { read: false },
  }[action];
  if (!change) return { redirect: ret };
  for (const id of ids) patch(state, id, change as Partial<Message>);
  state.events.push(`${action}:${ids.length}`);
  return {
    redirect: join(ret, action === 'archive' ? 'archived' : action === 'delete' ? 'deleted' : action),
  };
}

function send(base: string, data: MailData, state: MailState, form: SiteRequest['form']): SiteResponse {
  const v: ComposeValues = {
    toText: one(form.to_text).trim(),
    to: one(form.to).trim(),
    cc: one(form.cc).trim(),
    subject: one(form.subject).trim(),
    body: one(form.body),
    inReplyTo: one(form.inReplyTo),
    forwardOf: one(form.forwardOf),
  };
  const src = v.forwardOf ? findMessage(data, state, v.forwardOf) : undefined;
  const attachments = src?.attachments ?? [];
  let recipient: { name: string; email: string } | null = null;
  const contact = data.contacts.find((c) => c.email === v.to);
  if (v.to && contact) recipient = { name: contact.name, email: contact.email };
  else if (v.to && EMAIL_RE.test(v.to))
    recipient = { name: v.toText.replace(/\s*<.*$/, '') || v.to, email: v.to };
  else if (EMAIL_RE.test(v.toText)) recipient = { name: v.toText, email: v.toText.toLowerCase() };
  const draft = one(form.action) === 'draft';
  const errors: Record<string, string> = {};
  if (!draft) {
    if (!recipient)
      errors.to = v.toText
        ? `"${v.toText}" is not a contact. Choose a recipient from the suggestions or type a full email address.`
        : 'Add at least one recipient.';
    if (!v.subject) errors.subject = 'Add a subject.';
    if (!v.body.trim()) errors.body = 'Your message is empty.';
  }
  if (Object.keys(errors).length) {
    return {
      status: 422,
      html: shell({
        base,
        title: 'Compose',
        active: '',
        body: composeForm(base, v, errors, attachments),
        state,
        data,
      }),
    };
  }
  const out = {
    id: `${draft ? 'd' : 's'}${state.sent.length + state.drafts.length + 1}`,
    to: recipient ? [recipient] : [],
    cc: v.cc,
    subject: v.subject,
    body: v.body,
    inReplyTo: v.inReplyTo || null,
    forwardOf: v.forwardOf || null,
    attachments,
    date: `${data.today}T09:${String(10 + state.sent.length).slice(-2)}:00.000Z`,
  };
  (draft ? state.drafts : state.sent).push(out);
  return { redirect: `${base}/folder/${draft ? 'drafts' : 'sent'}?notice=${draft ? 'draft' : 'sent'}` };
}

function saveVacation(
  base: string,
  data: MailData,
  state: MailState,
  form: SiteRequest['form'],
): SiteResponse {
  const values = {
    enabled: one(form.enabled) === 'on' ? 'on' : 'off',
    start: one(form.start).trim(),
    end: one(form.end).trim(),
    subject: one(form.subject).trim(),
    message: one(form.message).trim(),
  };
  const errors: Record<string, string> = {};
  if (values.enabled === 'on') {
    if (!ISO_DAY.test(values.start)) errors.start = 'Choose the first day.';
    if (values.end && !ISO_DAY.test(values.end)) errors.end = 'Choose a valid last day.';
    if (values.end && values.start && values.end < values.start)
      errors.end = 'The last day must be on or after the first day.';
    if (!values.message) errors.message = 'Write the message people will receive.';
  }
  if (Object.keys(errors).length) {
    return {
      status: 422,
      html: shell({
        base,
        title: 'Settings',
        active: 'settings',
        body: settingsPage(base, state, 'vacation', errors, '', values),
        state,
        data,
      }),
    };
  }
  state.settings.vacation = {
    enabled: values.enabled === 'on',
    start: values.start,
    end: values.end,
    subject: values.subject,
    message: values.message,
  };
  return { redirect: `${base}/settings?tab=vacation&notice=saved` };
}

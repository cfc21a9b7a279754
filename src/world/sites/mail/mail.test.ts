import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import type { Task } from '../../../core/task.ts';
import { WorldServer } from '../../server.ts';
import { generateWorldTasks } from '../../tasks.ts';
import { HttpSession } from '../../testing/http-session.ts';
import { describeRun, sampleByTemplate, WorldHarness } from '../../testing/solve-harness.ts';
import { World } from '../../world.ts';
import type { MailData } from './data.ts';
import type { MailState } from './state.ts';
import { unreadFrom } from './templates-organize.ts';

const world = new World(1);
const mail = world.sites.get('mail')!;
const data = mail.data as MailData;
const tasks = generateWorldTasks({ world, site: 'mail' });
const taskOf = (template: string, split: 'train' | 'test' = 'train'): Task =>
  tasks.find((t) => t.verifier.kind === 'world' && t.verifier.template === template && t.split === split)!;
const paramsOf = (t: Task) => (t.verifier as { params: any }).params;

describe('mail site over HTTP', () => {
  let server: WorldServer;
  beforeAll(async () => {
    server = await WorldServer.start({ port: 0, world });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('seeds hundreds of messages across folders, with lookalike contacts', () => {
    expect(data.messages.length).toBeGreaterThan(500);
    const folders = new Set(data.messages.map((m) => m.folder));
    for (const f of ['inbox', 'archive', 'spam', 'sent', 'drafts'])
      expect(folders.has(f as never)).toBe(true);
    const names = data.contacts.map((c) => c.name);
    expect(names).toContain('Chris Park');
    expect(names).toContain('Chris Parker');
    expect(new Set(data.messages.map((m) => m.id)).size).toBe(data.messages.length);
  });

  it('renders the inbox with pagination, the promo modal and both mark-read buttons', async () => {
    const s = new HttpSession(server.url);
    const inbox = await s.get('/mail/');
    expect(inbox.url).toContain('/mail/folder/inbox');
    expect(inbox.text).toContain('data-modal="promo"');
    expect(inbox.text).toContain('>Mark as read</button>');
    expect(inbox.text).toContain('>Mark all as read</button>');
    expect(inbox.text.match(/class="row-link"/g)?.length).toBe(20);
    expect(inbox.text).toContain('rel="next"');
    const page2 = await s.get('/mail/folder/inbox?page=2');
    expect(page2.text).toContain('aria-current="page">2<');
  });

  it('searches, opens a message (marking it read) and serves its attachment', async () => {
    const s = new HttpSession(server.url);
    const inv =
      data.messages.find((m) => m.kind === 'invoice' && !m.read) ??
      data.messages.find((m) => m.kind === 'invoice')!;
    const res = await s.get(`/mail/search?q=${encodeURIComponent(inv.facts.invoice)}`);
    expect(res.text).toContain(`/mail/message/${inv.id}`);
    const view = await s.get(`/mail/message/${inv.id}`);
    expect(view.text).toContain('target="_blank"');
    const st = await s.state<MailState>('mail');
    expect(st.patches[inv.id]?.read ?? inv.read).toBe(true);
    const doc = await s.get(`/mail/attachment/${inv.id}/0`);
    expect(doc.text).toContain(
      `Total due: $${Number(inv.facts.total).toLocaleString('en-US', { minimumFractionDigits: 2 })}`,
    );
  });

  it('rejects a recipient typed but not chosen, keeping the values; sends once a contact is chosen', async () => {
    const s = new HttpSession(server.url);
    const bad = await s.post('/mail/send', {
      to_text: 'Chris Par',
      to: '',
      subject: 'Lunch',
      body: 'Noon?',
      action: 'send',
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('is not a contact');
    expect(bad.text).toContain('value="Lunch"');
    const sug = await s.get('/mail/api/contacts?q=chris%20par');
    const labels = (sug.json as Array<{ label: string }>).map((x) => x.label);
    expect(labels.some((l) => l.startsWith('Chris Park <'))).toBe(true);
    expect(labels.some((l) => l.startsWith('Chris Parker <'))).toBe(true);
    const parker = data.contacts.find((c) => c.name === 'Chris Parker')!;
    const ok = await s.post('/mail/send', {
      to_text: `Chris Parker <${parker.email}>`,
      to: parker.email,
      subject: 'Lunch',
      body: 'Noon?',
      action: 'send',
    });
    expect(ok.text).toContain('Your message has been sent.');
    const st = await s.state<MailState>('mail');
    expect(st.sent.map((m) => m.to[0].email)).toEqual([parker.email]);
  });

  it('verifies mark-read: selective marking passes, "Mark all as read" fails others.unread', async () => {
    const task = taskOf('mail.mark-read');
    const targets = unreadFrom(data, paramsOf(task).sender);
    const good = new HttpSession(server.url);
    await good.post('/mail/bulk', {
      action: 'read',
      ids: targets.map((m) => m.id),
      return: '/mail/folder/inbox',
    });
    expect(world.verify(task, good.id, null).success).toBe(true);
    const lazy = new HttpSession(server.url);
    await lazy.post('/mail/bulk', { action: 'allread', scope: 'inbox', return: '/mail/folder/inbox' });
    const v = world.verify(task, lazy.id, null);
    expect(v.success).toBe(false);
    expect(v.failedConditions).toContain('others.unread');
  });

  it('gives partial credit on a reply with the wrong text', async () => {
    const task = taskOf('mail.reply');
    const p = paramsOf(task);
    const m = data.byId.get(p.messageId)!;
    const s = new HttpSession(server.url);
    const form = await s.get(`/mail/compose?reply=${m.id}`);
    expect(form.text).toContain(`value="${m.from.email}"`);
    await s.post('/mail/send', {
      to_text: m.from.name,
      to: m.from.email,
      subject: `Re: ${m.subject}`,
      body: 'ok',
      inReplyTo: m.id,
      action: 'send',
    });
    const v = world.verify(task, s.id, null);
    expect(v.failedConditions).toEqual(['reply.body']);
    expect(v.score).toBeCloseTo(3 / 4);
  });

  it('validates the vacation responder and verifies its dates', async () => {
    const task = taskOf('mail.vacation');
    const p = paramsOf(task);
    const s = new HttpSession(server.url);
    const bad = await s.post('/mail/settings/vacation', {
      enabled: 'on',
      start: p.end,
      end: p.start,
      message: '',
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('The last day must be on or after the first day.');
    expect(bad.text).toContain('Write the message people will receive.');
    await s.post('/mail/settings/vacation', {
      enabled: 'on',
      start: p.start,
      end: p.end,
      message: p.message,
    });
    expect(world.verify(task, s.id, null).success).toBe(true);
  });

  it('answers information tasks from the final answer with normalized matching', () => {
    const code = taskOf('mail.find-code');
    const m = data.byId.get(paramsOf(code).messageId)!;
    expect(world.verify(code, 'nobody', `the code is ${m.facts.code.toLowerCase()}`).success).toBe(true);
    expect(world.verify(code, 'nobody', 'ABC123').failedConditions).toEqual(['answer.code']);
    const total = taskOf('mail.attachment-total');
    const inv = data.byId.get(paramsOf(total).messageId)!;
    expect(
      world.verify(
        total,
        'nobody',
        `Total: $${Number(inv.facts.total).toLocaleString('en-US', { minimumFractionDigits: 2 })}`,
      ).success,
    ).toBe(true);
  });

  it('generates tasks of every template with disjoint splits and 2-20 reference steps', () => {
    const byTemplate = new Map<string, Task[]>();
    for (const t of tasks)
      byTemplate.set((t.verifier as { template: string }).template, [
        ...(byTemplate.get((t.verifier as { template: string }).template) ?? []),
        t,
      ]);
    expect(byTemplate.size).toBe(mail.templates.length);
    expect(mail.templates.length).toBeGreaterThanOrEqual(8);
    for (const [, ts] of byTemplate) {
      expect(ts.filter((t) => t.split === 'train').length).toBeGreaterThanOrEqual(25);
      expect(ts.some((t) => t.split === 'test')).toBe(true);
      const trainKeys = new Set(ts.filter((t) => t.split === 'train').map((t) => String(t.meta?.splitKey)));
      expect(ts.filter((t) => t.split === 'test').some((t) => trainKeys.has(String(t.meta?.splitKey)))).toBe(
        false,
      );
    }
    expect(tasks.every((t) => (t.referenceLength ?? 0) >= 2 && (t.referenceLength ?? 0) <= 20)).toBe(true);
    expect(new Set(tasks.map((t) => t.level))).toEqual(new Set(['easy', 'medium', 'hard']));
  });

  it('has at least 200 raw queries whose groundings word back into tasks', () => {
    const qs = mail.rawQueries(new Rng(1));
    expect(qs.length).toBeGreaterThanOrEqual(200);
    for (const q of qs) {
      const t = mail.templates.find((x) => x.id === q.grounding.template)!;
      expect(t.draftFor?.(q.grounding.params, data)).toBeTruthy();
    }
  });
});

describe('mail reference solvers in Chromium', () => {
  let h: WorldHarness;
  beforeAll(async () => {
    h = await WorldHarness.open();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('solves a sampled task of every template', async () => {
    const sample = sampleByTemplate(h.tasks({ site: 'mail' }), 1, 'mail-ci');
    expect(new Set(sample.map((t) => t.category)).size).toBe(mail.templates.length);
    const runs = [];
    for (const t of sample) runs.push(await h.solve(t));
    expect(runs.filter((r) => !r.verdict.success).map(describeRun)).toEqual([]);
    for (const r of runs) expect(Math.abs(r.actions - (r.task.referenceLength ?? 0))).toBeLessThanOrEqual(3);
  }, 240_000);
});

import { normalizeText } from '../../../core/action-equivalence.ts';
import type { Observation } from '../../../core/observation.ts';
import type { TaskGoal } from '../goal.ts';
import { bestByText, type Choice, elementOf, NEXT_RE } from '../kit.ts';
import {
  isChecked,
  isClickable,
  isSearchBox,
  isSelect,
  labelOf,
  optionsOf,
  pageTexts,
  selectedOf,
} from '../page.ts';
import { careful } from './forms-fill.ts';
import type { Skill, SkillContext } from './index.ts';
import {
  askPattern,
  click,
  clickOr,
  done,
  findClickable,
  isWebmail,
  labelledValue,
  mailPage,
  matchScore,
  openMessage,
  rows,
} from './mail-page.ts';
import { type MailPlan, parseMailTask, searchWords } from './mail-parse.ts';
import { signature, toSettings, vacation, write } from './mail-write.ts';

/**
 * Webmail as a person uses it: search for the message by sender and subject matter, open it, then
 * reply, forward, label, rescue it from Spam or read the value asked for (opening an attached PDF
 * when the answer is in it); bulk clean-ups tick the sender's rows and use the toolbar; settings
 * jobs go through the Settings page (signature, vacation responder with its date pickers).
 */

const MAIL_TASK =
  /\b(e-?mails?|inbox|reply|forward|label|archive|spam|signature|vacation|auto-?reply|unread|attach(?:ed|ment)|mail)\b/i;
const DONE_NOTICE =
  /\b(has been sent|settings have been saved|marked as read|conversation archived|moved to inbox|draft saved)\b/i;

let cached: { text: string; plan: MailPlan } | null = null;
function planOf(goal: TaskGoal): MailPlan {
  if (cached?.text !== goal.text) cached = { text: goal.text, plan: parseMailTask(goal.text) };
  return cached.plan;
}

export const mailSkill: Skill = {
  id: 'mail',
  applies: (goal, obs) =>
    MAIL_TASK.test(goal.text) && (isWebmail(obs) || (obs.tabs.length > 1 && /attach|pdf/i.test(goal.text))),
  decide(ctx) {
    const plan = planOf(ctx.goal);
    const { obs } = ctx;
    const page = mailPage(obs);
    const notice = pageTexts(obs).find((t) => DONE_NOTICE.test(t));
    if (
      notice &&
      ctx.history.some((h) => h.action.type === 'click') &&
      plan.kind !== 'read' &&
      finished(ctx, plan)
    )
      return done(notice);
    switch (plan.kind) {
      case 'signature':
        return page === 'settings' ? signature(ctx, plan) : toSettings(obs);
      case 'vacation':
        return page === 'settings' ? vacation(ctx, plan) : toSettings(obs);
      case 'spam':
        return spam(ctx, plan, page);
      case 'mark-read':
      case 'archive':
        return bulk(ctx, plan, page);
      case 'compose':
        if (page === 'compose') return write(ctx, plan);
        return clickOr(obs, /^compose$/i, 'Start a new message');
      default:
        return viaMessage(ctx, plan, page);
    }
  },
};

/** Whether the page's notice reports the job this task asked for. */
function finished(ctx: SkillContext, plan: MailPlan): boolean {
  const t = pageTexts(ctx.obs).join(' ');
  switch (plan.kind) {
    case 'signature':
    case 'vacation':
      return /settings have been saved/i.test(t);
    case 'mark-read':
      return /marked as read/i.test(t);
    case 'archive':
      return /archived/i.test(t);
    case 'compose':
    case 'reply':
    case 'forward':
    case 'relay':
      return /has been sent/i.test(t);
    default:
      return false;
  }
}

/** Types a search query (the next one not tried yet), then submits it. */
function search(ctx: SkillContext, queries: string[]): Choice | null {
  const { obs, history } = ctx;
  const box = obs.elements.find(isSearchBox);
  if (!box) return null;
  const last = history.at(-1);
  if (last?.action.type === 'input' && !last.result.error) {
    const typedInto = elementOf(last, last.action.index);
    if (typedInto && isSearchBox(typedInto)) {
      const go = findClickable(obs, /^search$/i);
      return go
        ? click(go, `Search for "${last.action.text}"`)
        : { action: { type: 'send_keys', keys: 'Enter' }, goal: 'Submit the search' };
    }
  }
  // A query counts as tried once it was typed and submitted without an error.
  const tried = new Set<string>();
  let pending: string | null = null;
  for (const h of history) {
    if (h.result.error) continue;
    if (h.action.type === 'input') pending = normalizeText(h.action.text);
    else if (
      pending &&
      (h.action.type === 'send_keys' ||
        (h.action.type === 'click' &&
          /^search$/i.test(labelOf(elementOf(h, h.action.index) ?? h.observation.elements[0]))))
    ) {
      tried.add(pending);
      pending = null;
    }
  }
  const q = queries.find((x) => !tried.has(normalizeText(x)));
  if (!q) return null;
  return {
    action: { type: 'input', index: box.index, text: q, clear: true },
    goal: `Search the mailbox for "${q}"`,
  };
}

/** Whether the list on screen is the result of searching for `q`. */
function resultsFor(obs: Observation, q: string): boolean {
  const h1 = obs.texts.find((t) => t.tag === 'h1')?.text ?? '';
  return /search|results/i.test(h1) && normalizeText(h1).includes(normalizeText(q));
}

function bulk(ctx: SkillContext, plan: MailPlan, page: string): Choice | null {
  const { obs } = ctx;
  if (!plan.sender) return null;
  if (page !== 'list' || !resultsFor(obs, plan.sender)) {
    if (page === 'message') return { action: { type: 'go_back' }, goal: 'Back to the list' };
    return search(ctx, [plan.sender]);
  }
  // A quick clean-up trusts the search and selects every result it received; a careful one
  // (after a note) selects only the rows whose sender is the one named.
  const care = careful(ctx.rules);
  const mine = rows(obs).filter((r) => !r.sent && (!care || matchScore(r.who, r.who, plan.sender, null) > 0));
  if (!mine.length) return done(`No emails from ${plan.sender} found.`, false);
  const todo = mine.find((r) => !isChecked(r.box) && !ctx.acted(r.box));
  if (todo) return click(todo.box, `Select "${todo.subject}" from ${todo.who}`);
  const want = plan.kind === 'archive' ? 'Archive' : 'Mark as read';
  const buttons = ctx.usable.filter((e) => isClickable(e) && e.tag === 'button');
  const b = bestByText(buttons, want, ctx.rules);
  return b ? click(b, `Click "${labelOf(b)}"`) : null;
}

function spam(ctx: SkillContext, plan: MailPlan, page: string): Choice | null {
  const { obs, rules } = ctx;
  if (page === 'message') {
    const m = openMessage(obs);
    if (plan.subject && normalizeText(m.subject) !== normalizeText(plan.subject))
      return { action: { type: 'go_back' }, goal: 'This is not the message; go back' };
    const rescue = findClickable(obs, /^(not spam|move to inbox|not junk)$/i);
    if (rescue) return click(rescue, 'Move it back to the inbox');
    if (plan.label) {
      const c = applyLabel(ctx, plan.label);
      if (c) return c;
    }
    return done(
      `Moved "${plan.subject}" back to the inbox${plan.label ? ` and labelled it ${plan.label}` : ''}.`,
    );
  }
  const inSpam = /^spam$/i.test(obs.texts.find((t) => t.tag === 'h1')?.text ?? '');
  if (!inSpam) return clickOr(obs, /^spam\b/i, 'Open the Spam folder');
  const best = bestRow(ctx, plan.sender, plan.subject);
  if (best?.link) return click(best.link, `Open "${best.subject}"`);
  if (rules.prefer.some((r) => r.kind === 'page')) {
    const next = ctx.usable.find((e) => isClickable(e) && NEXT_RE.test(labelOf(e).trim()));
    if (next) return click(next, 'Look on the next page of Spam');
  }
  return done(`I could not find "${plan.subject}" in Spam.`, false);
}

/** The row that best matches sender and topic; ties go to the first listed (no care without a note). */
function bestRow(ctx: SkillContext, sender: string | null, topic: string | null) {
  let best: ReturnType<typeof rows>[number] | undefined;
  let score = 0.5 - 1e-9;
  const care = careful(ctx.rules);
  for (const r of rows(ctx.obs)) {
    if (r.sent || !r.link || ctx.acted(r.link) || !ctx.usable.includes(r.link)) continue;
    const s = matchScore(`${r.subject} ${r.text}`, r.who, sender, topic, care);
    if (s > score) {
      best = r;
      score = s;
    }
  }
  return best;
}

function applyLabel(ctx: SkillContext, label: string): Choice | null {
  const { obs } = ctx;
  const has = obs.elements.some((e) => normalizeText(labelOf(e)) === normalizeText(`Remove label ${label}`));
  if (has) return null;
  const pick = obs.elements.find(
    (e) => isSelect(e) && /label/i.test(`${labelOf(e)} ${e.attributes.name ?? ''}`),
  );
  if (!pick) return null;
  const opt = optionsOf(pick).find((o) => normalizeText(o) === normalizeText(label));
  if (!opt) return null;
  if (normalizeText(selectedOf(pick)) !== normalizeText(opt))
    return {
      action: { type: 'select_dropdown', index: pick.index, text: opt },
      goal: `Choose the label "${opt}"`,
    };
  return clickOr(obs, /^apply( label)?$/i, `Apply the label "${opt}"`);
}

/** Jobs on one message: find it (search, open), then act on it. */
function viaMessage(ctx: SkillContext, plan: MailPlan, page: string): Choice | null {
  const { obs, history } = ctx;
  if (page === 'compose') return write(ctx, plan);
  if (plan.kind === 'read' && !isWebmail(obs)) return readDocument(ctx);
  if (page === 'message') {
    const m = openMessage(obs);
    if (matchScore(m.text, m.who, plan.sender, plan.topic, careful(ctx.rules)) < 0.5)
      return { action: { type: 'go_back' }, goal: 'Not the message I want; back to the list' };
    return onMessage(ctx, plan);
  }
  if (page === 'list') {
    const best = bestRow(ctx, plan.sender, plan.topic);
    if (best?.link) return click(best.link, `Open "${best.subject}" from ${best.who}`);
  }
  const typed = history.some((h) => h.action.type === 'input');
  const s = search(ctx, searchWords(plan, careful(ctx.rules)));
  if (s) return s;
  if (page === 'list' && ctx.rules.prefer.some((r) => r.kind === 'page')) {
    const next = ctx.usable.find((e) => isClickable(e) && NEXT_RE.test(labelOf(e).trim()));
    if (next) return click(next, 'Look on the next page of results');
  }
  return typed ? done('I could not find the email.', false) : null;
}

function onMessage(ctx: SkillContext, plan: MailPlan): Choice | null {
  const { obs } = ctx;
  switch (plan.kind) {
    case 'label':
      return plan.label ? (applyLabel(ctx, plan.label) ?? done(`Labelled it ${plan.label}.`)) : null;
    case 'reply':
      return clickOr(obs, /^reply$/i, 'Reply to the message');
    case 'forward':
      return clickOr(obs, /^forward$/i, 'Forward the message');
    case 'relay':
      return clickOr(obs, /^compose$/i, 'Start a new message with the tracking number');
    default: {
      const v = labelledValue(obs, askPattern(ctx.goal.text));
      if (v) return done(v);
      const file = obs.elements.find(
        (e) => e.tag === 'a' && /\.(pdf|docx?|xlsx?|txt)$/i.test(labelOf(e).trim()),
      );
      if (file && !ctx.acted(file)) return click(file, `Open the attachment "${labelOf(file)}"`);
      return readDocument(ctx);
    }
  }
}

/** An attachment opened in a new tab: switch to it, then read the value asked for. */
function readDocument(ctx: SkillContext): Choice | null {
  const { obs } = ctx;
  const active = obs.tabs.find((t) => t.active);
  const newest = obs.tabs.at(-1);
  if (newest && active && newest.id !== active.id && isWebmail(obs))
    return { action: { type: 'switch_tab', tab_id: newest.id }, goal: `Switch to the tab "${newest.title}"` };
  const v = labelledValue(obs, askPattern(ctx.goal.text));
  return v ? done(v) : null;
}

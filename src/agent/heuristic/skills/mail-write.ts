import { normalizeText } from '../../../core/action-equivalence.ts';
import type { Observation } from '../../../core/observation.ts';
import { bestByText, type Choice, elementOf } from '../kit.ts';
import { isChecked, labelOf } from '../page.ts';
import { isDateField, pickDay } from './forms-date.ts';
import { careful, holds } from './forms-fill.ts';
import type { SkillContext } from './index.ts';
import { click, clickOr, composeField, seenValue } from './mail-page.ts';
import type { MailPlan } from './mail-parse.ts';

/**
 * Writing in webmail: the settings jobs (signature, vacation responder with its calendars) and the
 * compose form shared by new messages, replies, forwards and relayed facts.
 */

/** Opens the settings page. */
export function toSettings(obs: Observation): Choice | null {
  return clickOr(obs, /^settings$/i, 'Open the mail settings');
}

/** Writes and saves the signature the task gives. */
export function signature(ctx: SkillContext, plan: MailPlan): Choice | null {
  const field = composeField(ctx.obs, 'signature');
  if (!field || !plan.text) return null;
  if (!holds(field.attributes.value ?? '', plan.text))
    return {
      action: { type: 'input', index: field.index, text: plan.text, clear: true },
      goal: 'Write the new signature',
    };
  return clickOr(ctx.obs, /^save( changes)?$/i, 'Save the signature');
}

/** Turns on the vacation responder for the task's dates with its message, and saves it. */
export function vacation(ctx: SkillContext, plan: MailPlan): Choice | null {
  const { obs, history } = ctx;
  const tab = obs.elements.find((e) => e.role === 'tab' && /vacation|out of office|auto/i.test(labelOf(e)));
  if (tab && tab.attributes['aria-selected'] === 'false')
    return click(tab, 'Open the vacation responder tab');
  // The on/off switch: a quick reader flips it only when the task says "turn on"; a careful one
  // (after a note) knows an auto-reply does nothing while it is off.
  const on = obs.elements.find((e) => e.attributes.type === 'radio' && /\bon\b|enable/i.test(labelOf(e)));
  const asked = /\b(turn|switch|set|put) (?:it |my \w+ (?:\w+ )?)?on\b|\b(enable|activate)\b/i.test(
    ctx.goal.text,
  );
  if (on && !isChecked(on) && (asked || careful(ctx.rules)))
    return click(on, 'Turn the vacation responder on');
  const dates = obs.elements.filter(isDateField);
  const startField = dates.find((e) => /first|start|from|begin/i.test(labelOf(e))) ?? dates[0];
  const endField = dates.find((e) => /last|end|until|to\b|return/i.test(labelOf(e))) ?? dates[1];
  if (startField && plan.start) {
    const c = pickDay(obs, history, startField, plan.start, 'the first day');
    if (c) return c;
  }
  if (endField && plan.end) {
    const c = pickDay(obs, history, endField, plan.end, 'the last day');
    if (c) return c;
  }
  const msg = composeField(obs, 'message');
  if (msg && plan.text && !holds(msg.attributes.value ?? '', plan.text))
    return {
      action: { type: 'input', index: msg.index, text: plan.text, clear: true },
      goal: 'Write the auto-reply message',
    };
  return clickOr(obs, /^save( changes)?$/i, 'Save the vacation responder');
}

/**
 * Fills the compose form (new message, reply or forward): recipient through the contact
 * suggestions, subject, body (with the tracking number read earlier, for a relay), then sends.
 */
export function write(ctx: SkillContext, plan: MailPlan): Choice | null {
  const { obs, history, rules } = ctx;
  const to = composeField(obs, 'to');
  if (to && plan.recipient) {
    // A quick writer types the first name and the start of the last name and takes the first
    // suggestion that fits; a careful one types the whole name and takes the exact contact.
    const recipient = plan.recipient;
    const care = careful(rules);
    const [firstName, ...rest] = recipient.split(' ');
    const typed = care || !rest.length ? recipient : `${firstName} ${rest.join(' ').slice(0, 3)}`;
    const value = to.attributes.value ?? '';
    const nameOf = (s: string) => normalizeText(s.replace(/<.*$/, ''));
    const fits = (s: string) =>
      care ? nameOf(s) === normalizeText(recipient) : nameOf(s).startsWith(normalizeText(typed));
    const chosen = /<[^>]+@[^>]+>/.test(value) && fits(value);
    if (!chosen) {
      const options = ctx.usable.filter((e) => e.role === 'option');
      const best =
        options.find((o) => fits(labelOf(o))) ?? (care ? bestByText(options, recipient, rules) : undefined);
      if (best) return click(best, `Choose "${labelOf(best)}" as the recipient`);
      const last = history.at(-1);
      const typedHere =
        last?.action.type === 'input' && elementOf(last, last.action.index)?.nodeKey === to.nodeKey;
      if (
        typedHere &&
        last.action.type === 'input' &&
        normalizeText(last.action.text) === normalizeText(typed)
      )
        return { action: { type: 'wait', seconds: 1 }, goal: 'Wait for the contact suggestions' };
      return {
        action: { type: 'input', index: to.index, text: typed, clear: true },
        goal: `Type ${typed} in To`,
      };
    }
  }
  const subject = composeField(obs, 'subject');
  const wantSubject =
    plan.kind === 'compose' ? plan.subject : plan.kind === 'relay' ? 'Tracking number' : null;
  if (subject && wantSubject && !holds(subject.attributes.value ?? '', wantSubject))
    return {
      action: { type: 'input', index: subject.index, text: wantSubject, clear: true },
      goal: `Write the subject "${wantSubject}"`,
    };
  const body = composeField(obs, 'message');
  let text = plan.text;
  if (plan.kind === 'relay') {
    const tracking = seenValue(obs, history, /tracking/i);
    if (!tracking) return null;
    text = `Here is the tracking number for my ${plan.topic ?? 'order'}: ${tracking}`;
  }
  if (body && text && !holds(body.attributes.value ?? '', text))
    return { action: { type: 'input', index: body.index, text, clear: true }, goal: 'Write the message' };
  return clickOr(obs, /^send$/i, 'Send the message');
}

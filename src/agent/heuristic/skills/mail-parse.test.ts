import { describe, expect, it } from 'vitest';
import {
  isoDatesIn,
  mailKindOf,
  parseMailTask,
  recipientOf,
  searchWords,
  senderOf,
  topicOf,
  valueAfter,
} from './mail-parse.ts';

describe('mail task parsing', () => {
  it('recognises the kind of mail job from the wording', () => {
    expect(mailKindOf('Set my Postbox signature to "Best, Alex".')).toBe('signature');
    expect(
      mailKindOf(
        'Turn on my vacation responder from March 1, 2027 to March 5, 2027 with the message: "Away"',
      ),
    ).toBe('vacation');
    expect(
      mailKindOf('The email from Greg Watts ("Rent receipt") ended up in Spam. Move it back to my inbox.'),
    ).toBe('spam');
    expect(
      mailKindOf('Forward the email from REI about my socks order to Tom Hall with the note "FYI"'),
    ).toBe('forward');
    expect(mailKindOf('Send Anna Bell an email with the tracking number of my Kindle order.')).toBe('relay');
    expect(mailKindOf('Chris Park emailed me about the budget. Reply: Sounds good.')).toBe('reply');
    expect(mailKindOf('Email Matthew Lee. Subject: Lunch. Message: Free at noon?')).toBe('compose');
    expect(
      mailKindOf('Mark every unread email from Apple as read, without touching my other unread mail.'),
    ).toBe('mark-read');
    expect(mailKindOf('Archive all the emails from Hyatt that are in my inbox.')).toBe('archive');
    expect(mailKindOf("Label Delta's email about my flight to Boston as Travel.")).toBe('label');
    expect(
      mailKindOf('What is the confirmation code in the email from United about my flight to Denver?'),
    ).toBe('read');
  });

  it('finds senders, including possessives, companies and "owe"', () => {
    expect(senderOf("Label Atlas Moving Co.'s email about invoice INV-3573 as Finance.")).toBe(
      'Atlas Moving Co.',
    );
    expect(
      senderOf(
        "I need the confirmation number for my flight to Dallas. It's in an email from United. What is it?",
      ),
    ).toBe('United');
    expect(
      senderOf('How much do I owe Pixel & Pine Studio for invoice INV-2887? Check the attached invoice.'),
    ).toBe('Pixel & Pine Studio');
    expect(
      senderOf('Find the American Airlines email about my flight to Portland and tell me the code.'),
    ).toBe('American Airlines');
    expect(senderOf('Christopher Ortiz emailed me about fantasy football draft. Reply: Yes.')).toBe(
      'Christopher Ortiz',
    );
  });

  it('reads topics and recipients without swallowing the recipient', () => {
    expect(topicOf('What is the confirmation code in the email from United about my flight to Denver?')).toBe(
      'my flight to Denver',
    );
    expect(topicOf('How much do I owe Harbor Legal Group for invoice INV-2234? Check it.')).toBe(
      'invoice INV-2234',
    );
    expect(recipientOf('Email Kimberly Ramirez. Subject: Quick question. Message: Hi')).toBe(
      'Kimberly Ramirez',
    );
    expect(
      recipientOf('Bena Carter wants to know when my Kindle arrives. Email them the tracking number.'),
    ).toBe('Bena Carter');
    const fwd = parseMailTask(
      'Forward the email from Delta about my flight to Dallas to Chloe Martinez with the note "Here you go."',
    );
    expect(fwd).toMatchObject({
      kind: 'forward',
      sender: 'Delta',
      recipient: 'Chloe Martinez',
      topic: 'my flight to Dallas',
      text: 'Here you go.',
    });
  });

  it('reads what to write: quoted text, or the rest after a cue', () => {
    expect(valueAfter('Reply: Yes, 3 PM works for me.', /\breply\b/i, true)).toBe('Yes, 3 PM works for me.');
    expect(valueAfter('Subject: Quick question. Message: Hi', /\bsubject\b/i)).toBe('Quick question');
    const c = parseMailTask(
      'Write a new email to Matthew Lee titled "Invoice question" that says "Was it paid?"',
    );
    expect(c).toMatchObject({
      kind: 'compose',
      recipient: 'Matthew Lee',
      subject: 'Invoice question',
      text: 'Was it paid?',
    });
    const v = parseMailTask(
      'I\'m away February 24, 2027 through March 2, 2027. Set up an automatic vacation reply saying "Back soon."',
    );
    expect(v).toMatchObject({ kind: 'vacation', start: '2027-02-24', end: '2027-03-02', text: 'Back soon.' });
    expect(isoDatesIn('from 03/05/2027 to March 9, 2027')).toEqual(['2027-03-05', '2027-03-09']);
  });

  it('searches by sender alone when quick, by sender and a distinctive fact when careful', () => {
    const p = parseMailTask("Label Summit IT Services's email about invoice INV-2359 as Follow up.");
    expect(p.label).toBe('Follow up');
    expect(searchWords(p, false)[0]).toBe('Summit IT Services');
    expect(searchWords(p, true)[0]).toBe('Summit IT Services INV-2359');
  });
});

import { describe, expect, it } from 'vitest';
import { Observation } from '../../../core/observation.ts';
import { askPattern, labelledValue, mailPage, matchScore, rows } from './mail-page.ts';

const box = { x: 0, y: 0, width: 10, height: 10 };
const el = (index: number, tag: string, name: string, attributes: Record<string, string> = {}) => ({
  index,
  tag,
  name,
  text: name,
  attributes,
  bbox: box,
  nodeKey: `k${index}`,
});

describe('webmail page reading', () => {
  it('reads list rows from their select boxes and links', () => {
    const obs = Observation.parse({
      url: 'http://x/mail/search?q=united',
      elements: [
        el(1, 'button', 'Mark as read'),
        el(2, 'input', 'Select: United Airlines - Check in now for your flight to Denver', {
          type: 'checkbox',
        }),
        el(3, 'a', 'United Airlines Check in now for your flight to Denver - Time to check in. Jan 28'),
        el(4, 'input', 'Select: To: Chris Park - Re: Budget', { type: 'checkbox' }),
        el(5, 'a', 'To: Chris Park Re: Budget - Thanks, will do. Jan 2'),
      ],
    });
    const r = rows(obs);
    expect(r.map((x) => [x.who, x.subject, x.sent, x.link?.index])).toEqual([
      ['United Airlines', 'Check in now for your flight to Denver', false, 3],
      ['To: Chris Park', 'Re: Budget', true, 5],
    ]);
    expect(mailPage(obs)).toBe('list');
  });

  it('matches sender and topic; only a careful read insists on numbers and topic words', () => {
    const row = 'Your invoice INV-2212 is ready - Please find attached invoice INV-2212';
    expect(
      matchScore(row, 'Harbor Legal Group', 'Harbor Legal Group', 'invoice INV-2234', false),
    ).toBeGreaterThan(0.5);
    expect(matchScore(row, 'Harbor Legal Group', 'Harbor Legal Group', 'invoice INV-2234', true)).toBe(0);
    expect(
      matchScore(
        'Check in now for your flight to Salt Lake City',
        'United Airlines',
        'United',
        'my flight to Philadelphia',
        false,
      ),
    ).toBe(0);
    expect(
      matchScore(
        'Your trip confirmation: Chicago to Philadelphia',
        'United Airlines',
        'United',
        'my flight to Philadelphia',
        false,
      ),
    ).toBe(1);
    expect(
      matchScore(
        'Your trip confirmation: Chicago to Philadelphia',
        'United Airlines',
        'United',
        'my flight to Philadelphia',
        true,
      ),
    ).toBe(0.5);
    expect(matchScore('anything', 'Delta Air Lines', 'United', null)).toBe(0);
  });

  it('reads "Label: value" lines for the value a question asks for', () => {
    const obs = Observation.parse({
      url: 'http://x/',
      texts: [
        { text: 'Your trip confirmation: Chicago to Denver' },
        { text: 'Confirmation code: 4KQ2ZP' },
        { text: 'Subtotal: $100.00' },
        { text: 'Total due: $106.25' },
      ],
    });
    expect(labelledValue(obs, askPattern('What is the confirmation code in the email from United?'))).toBe(
      '4KQ2ZP',
    );
    expect(labelledValue(obs, askPattern('How much do I owe Keystone Electric for invoice INV-3129?'))).toBe(
      '$106.25',
    );
  });
});

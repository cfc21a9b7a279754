import { describe, expect, it } from 'vitest';
import { Observation } from '../core/observation.ts';
import { mapAction, onOrigin } from './replay.ts';

const page = (origin: string) =>
  Observation.parse({
    url: `${origin}/mail/search?q=invoice`,
    tabs: [{ id: '0', url: `${origin}/mail/search?q=invoice`, title: 'Search', active: true }],
    elements: [
      {
        index: 3,
        tag: 'a',
        role: 'link',
        name: 'Inbox',
        attributes: { href: '/mail/folder/inbox' },
        bbox: { x: 0, y: 0, width: 10, height: 10 },
        nodeKey: 'k3',
      },
      {
        index: 26,
        tag: 'a',
        role: 'link',
        name: 'Your invoice is ready',
        attributes: { href: '/mail/message/m1259' },
        bbox: { x: 0, y: 20, width: 10, height: 10 },
        nodeKey: 'k26',
      },
    ],
  });

describe('replaying a run recorded on another port of the world', () => {
  it('matches recorded links on the live page once the recorded page is moved to the live origin', () => {
    const recorded = page('http://127.0.0.1:38531');
    const live = {
      ...page('http://127.0.0.1:45887'),
      elements: [...page('http://127.0.0.1:45887').elements].reverse(),
    };
    const click = { type: 'click', index: 26 } as const;
    // Element matching resolves hrefs against the page URL: across ports the same link would differ.
    expect(mapAction(click, recorded, live)).toEqual(click);
    expect(mapAction({ type: 'click', index: 3 }, recorded, live)).toEqual({ type: 'click', index: 3 });
    expect(onOrigin(recorded, live.url).tabs[0].url).toBe('http://127.0.0.1:45887/mail/search?q=invoice');
  });

  it('moves a navigate recorded on the old port to the live one', () => {
    const recorded = page('http://127.0.0.1:38531');
    const live = page('http://127.0.0.1:45887');
    const nav = {
      type: 'navigate',
      url: 'http://127.0.0.1:38531/mail/folder/inbox',
      new_tab: false,
    } as const;
    expect(mapAction(nav, recorded, live)).toEqual({
      ...nav,
      url: 'http://127.0.0.1:45887/mail/folder/inbox',
    });
  });
});

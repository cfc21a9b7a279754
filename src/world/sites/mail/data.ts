import { Rng } from '../../../core/rng.ts';
import { slug } from '../../../core/text.ts';
import { FIRST_NAMES, LAST_NAMES } from '../people.ts';
import {
  AIRLINES,
  APPOINTMENTS,
  CITIES,
  COLLEAGUE_DOMAIN,
  FINANCE,
  HOTELS,
  LOOKALIKE_CONTACTS,
  ME,
  MISFILED,
  NEWSLETTERS,
  PERSONAL_TOPICS,
  PRODUCTS,
  SPAM,
  STORES,
  VENDORS,
  WORK_TOPICS,
} from './content.ts';

export type Folder = 'inbox' | 'sent' | 'drafts' | 'archive' | 'spam' | 'trash';
export const FOLDERS: Folder[] = ['inbox', 'sent', 'drafts', 'archive', 'spam', 'trash'];

export type MessageKind =
  | 'flight'
  | 'checkin'
  | 'hotel'
  | 'order'
  | 'invoice'
  | 'work'
  | 'personal'
  | 'newsletter'
  | 'finance'
  | 'appointment'
  | 'spam'
  | 'misfiled'
  | 'sent'
  | 'draft';

export interface Person {
  id: string;
  name: string;
  email: string;
  /** Short brand name ("Delta") for companies; the full name for people. */
  short: string;
}

export interface Attachment {
  name: string;
  size: string;
  /** Lines of the document preview shown when the attachment is opened. */
  preview: string[];
}

export interface Message {
  id: string;
  folder: Folder;
  kind: MessageKind;
  from: Person;
  to: Person[];
  subject: string;
  body: string[];
  /** ISO date-time (UTC). */
  date: string;
  read: boolean;
  starred: boolean;
  labels: string[];
  attachments: Attachment[];
  /** How a user would refer to it: "your flight to Denver", "invoice INV-2041". */
  about: string;
  /** Facts information tasks ask about (code, total, tracking...). */
  facts: Record<string, string>;
}

export interface MailData {
  me: Person;
  contacts: Person[];
  messages: Message[];
  byId: Map<string, Message>;
  /** The mailbox's "now": the newest message is older than this. */
  today: string;
}

const CODE_CHARS = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function code(rng: Rng, n: number, chars = CODE_CHARS): string {
  let s = '';
  for (let i = 0; i < n; i++) s += chars[rng.int(0, chars.length - 1)];
  return s;
}

function company(name: string, email: string, short = name): Person {
  return { id: slug(name), name, email, short };
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A day between 2026-08-01 and 2027-01-31, as an ISO date-time with a plausible hour. */
function dateIn(rng: Rng, fromDay = 0, toDay = 183): string {
  const d = new Date(Date.UTC(2026, 7, 1) + rng.int(fromDay, toDay) * 86_400_000);
  d.setUTCHours(rng.int(6, 21), rng.int(0, 59));
  return d.toISOString();
}

const LONG_DATE = new Intl.DateTimeFormat('en-US', {
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  timeZone: 'UTC',
});

function futureDay(rng: Rng): string {
  return LONG_DATE.format(new Date(Date.UTC(2027, 1, 3) + rng.int(0, 80) * 86_400_000));
}

function buildContacts(rng: Rng): { colleagues: Person[]; friends: Person[] } {
  const used = new Set<string>();
  const colleagues: Person[] = [];
  const friends: Person[] = [];
  const personAt = (name: string, work: boolean): Person => {
    used.add(name);
    const [first, ...rest] = name.split(' ');
    const last = rest.join('');
    const email = work
      ? `${first}.${last}@${COLLEAGUE_DOMAIN}`.toLowerCase()
      : `${first}.${last}${rng.bool(0.3) ? rng.int(2, 88) : ''}@${rng.pick(['gmail.com', 'outlook.com', 'icloud.com', 'yahoo.com'])}`.toLowerCase();
    return { id: slug(name), name, email, short: name };
  };
  LOOKALIKE_CONTACTS.forEach(([a, b], i) => {
    colleagues.push(personAt(a, i % 2 === 0));
    friends.push(personAt(b, i % 2 === 1));
  });
  while (colleagues.length < 34) {
    const name = `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
    if (!used.has(name)) colleagues.push(personAt(name, true));
  }
  while (friends.length < 30) {
    const name = `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
    if (!used.has(name)) friends.push(personAt(name, false));
  }
  return { colleagues, friends };
}

/** Builds the seeded mailbox: contacts and several hundred messages across folders. */
export function buildMailData(seed: number): MailData {
  const rng = new Rng(`${seed}:mail:data`);
  const me: Person = { id: 'me', name: ME.name, email: ME.email, short: ME.name };
  const { colleagues, friends } = buildContacts(rng);
  const drafts: Array<Omit<Message, 'id' | 'read' | 'starred' | 'labels'> & Partial<Message>> = [];
  const add = (m: Omit<Message, 'id' | 'read' | 'starred' | 'labels'> & Partial<Message>) => drafts.push(m);

  // Flights, with some check-in reminders that repeat the same code.
  const flightPairs = rng.shuffle(AIRLINES.flatMap((a) => CITIES.map((c) => [a, c] as const))).slice(0, 56);
  for (const [air, [city, iata]] of flightPairs) {
    const c = code(rng, 6);
    const flight = `${air.code} ${rng.int(100, 2999)}`;
    const day = futureDay(rng);
    const time = `${rng.int(6, 11)}:${rng.pick(['05', '15', '30', '45', '55'])} ${rng.pick(['AM', 'PM'])}`;
    const from = company(air.name, air.email, air.short);
    const facts = { code: c, city, flight, day, time, sender: air.short };
    add({
      folder: 'inbox',
      kind: 'flight',
      from,
      to: [me],
      attachments: [],
      subject: rng.pick([
        `Your trip confirmation: Chicago to ${city}`,
        `Flight confirmation - Chicago (ORD) to ${city} (${iata})`,
        `Your ${air.short} booking to ${city} is confirmed`,
      ]),
      body: [
        'Hi Alex,',
        `Thanks for booking with ${air.name}. Your trip to ${city} is confirmed.`,
        `Confirmation code: ${c}`,
        `Flight ${flight} · Chicago (ORD) → ${city} (${iata})`,
        `Departs ${day} at ${time}. Seat ${rng.int(4, 38)}${rng.pick(['A', 'B', 'C', 'D', 'E', 'F'])}.`,
        'You can check in online 24 hours before departure.',
      ],
      date: dateIn(rng, 0, 170),
      about: `your flight to ${city}`,
      facts,
    });
    if (rng.bool(0.25)) {
      add({
        folder: 'inbox',
        kind: 'checkin',
        from,
        to: [me],
        attachments: [],
        subject: `Check in now for your flight to ${city}`,
        body: [
          'Hi Alex,',
          `It's time to check in for flight ${flight} to ${city}.`,
          `Confirmation code: ${c}`,
          'Check in on our app or website to get your boarding pass.',
        ],
        date: dateIn(rng, 175, 183),
        about: `checking in for your flight to ${city}`,
        facts,
      });
    }
  }

  const hotelPairs = rng.shuffle(HOTELS.flatMap((h) => CITIES.map((c) => [h, c[0]] as const))).slice(0, 36);
  for (const [h, city] of hotelPairs) {
    const c = String(rng.int(100_000_000, 999_999_999));
    const nights = rng.int(1, 6);
    const day = futureDay(rng);
    add({
      folder: 'inbox',
      kind: 'hotel',
      from: company(h.name, h.email, h.short),
      to: [me],
      attachments: [],
      subject:
        h.short === 'Airbnb' ? `Reservation confirmed - ${city}` : `Your reservation in ${city} is confirmed`,
      body: [
        'Hello Alex,',
        `Your ${h.kind} in ${city} is booked for ${nights} night${nights > 1 ? 's' : ''}.`,
        `Confirmation number: ${c}`,
        `Check-in: ${day}, after 3:00 PM.`,
        'Free cancellation until 48 hours before arrival.',
      ],
      date: dateIn(rng, 0, 175),
      about: `your ${h.kind} in ${city}`,
      facts: { code: c, city, day, nights: String(nights), sender: h.short },
    });
  }

  for (const product of PRODUCTS) {
    const store = rng.pick(STORES);
    const order =
      store.short === 'Amazon'
        ? `112-${rng.int(1_000_000, 9_999_999)}-${rng.int(1_000_000, 9_999_999)}`
        : `${rng.int(10_000_000, 99_999_999)}`;
    const tracking =
      store.carrier === 'UPS'
        ? `1Z${code(rng, 6, 'ABCDEFGHJKLMNPRSTUVWXY0123456789')}${code(rng, 10, '0123456789')}`
        : store.carrier === 'USPS'
          ? code(rng, 22, '0123456789')
          : code(rng, 12, '0123456789');
    add({
      folder: 'inbox',
      kind: 'order',
      from: company(store.name, store.email, store.short),
      to: [me],
      attachments: [],
      subject:
        store.short === 'Amazon'
          ? `Your Amazon.com order of "${product}" has shipped!`
          : `Your ${store.short} order has shipped: ${product}`,
      body: [
        'Hi Alex,',
        `Good news: your order #${order} is on its way.`,
        `Item: ${product}`,
        `Carrier: ${store.carrier}`,
        `Tracking number: ${tracking}`,
        `Estimated delivery: ${futureDay(rng)}.`,
      ],
      date: dateIn(rng, 0, 183),
      about: `your ${product} order`,
      facts: { order, tracking, carrier: store.carrier, product, sender: store.short },
    });
  }

  let invoiceNo = 2000;
  for (const v of VENDORS) {
    for (let k = 0; k < 6; k++) {
      invoiceNo += rng.int(3, 41);
      const inv = `INV-${invoiceNo}`;
      const hours = rng.int(3, 40);
      const rate = rng.pick([65, 85, 95, 110, 125, 150, 175]);
      const subtotal = hours * rate;
      const tax = Math.round(subtotal * 0.0625 * 100) / 100;
      const total = (subtotal + tax).toFixed(2);
      const due = futureDay(rng);
      const fmt = (n: number | string) =>
        `$${Number(n).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
      add({
        folder: 'inbox',
        kind: 'invoice',
        from: company(v.name, v.email),
        to: [me],
        subject: rng.pick([
          `Invoice ${inv} from ${v.name}`,
          `${v.name}: invoice ${inv}`,
          `Your invoice ${inv} is ready`,
        ]),
        body: [
          'Hi Alex,',
          `Please find attached invoice ${inv} for ${v.service.toLowerCase()}.`,
          'Payment is due within 30 days. Let us know if you have any questions.',
          `Thanks,`,
          v.name,
        ],
        attachments: [
          {
            name: `Invoice-${inv}.pdf`,
            size: `${rng.int(60, 240)} KB`,
            preview: [
              v.name,
              `Invoice ${inv}`,
              `Bill to: Alex Morgan, Northwind Labs`,
              `${v.service}: ${hours} hours × ${fmt(rate)} = ${fmt(subtotal)}`,
              `Subtotal: ${fmt(subtotal)}`,
              `Sales tax (6.25%): ${fmt(tax)}`,
              `Total due: ${fmt(total)}`,
              `Due date: ${due}`,
            ],
          },
        ],
        date: dateIn(rng, 0, 183),
        about: `invoice ${inv}`,
        facts: { invoice: inv, total, due, sender: v.name },
      });
    }
  }

  const workPairs = rng
    .shuffle(colleagues.flatMap((c) => WORK_TOPICS.map((t) => [c, t] as const)))
    .slice(0, 120);
  for (const [c, topic] of workPairs) {
    const attach = rng.bool(0.2);
    add({
      folder: 'inbox',
      kind: 'work',
      from: c,
      to: [me],
      subject: capitalize(topic),
      body: [
        `Hi Alex,`,
        rng.pick([
          `Following up on the ${topic}.`,
          `Quick note about the ${topic}.`,
          `Wanted to get your input on the ${topic}.`,
        ]),
        rng.pick([
          'Can you take a look when you get a chance?',
          'Let me know what you think.',
          'Could you reply by Wednesday?',
          'Happy to talk it through on a call.',
        ]),
        `Thanks,`,
        c.name.split(' ')[0],
      ],
      attachments: attach
        ? [
            {
              name: `${slug(topic)}.docx`,
              size: `${rng.int(20, 900)} KB`,
              preview: [capitalize(topic), 'Draft for review', `Owner: ${c.name}`],
            },
          ]
        : [],
      date: dateIn(rng, 0, 183),
      about: `the ${topic}`,
      facts: { topic, sender: c.name },
    });
  }

  const personalPairs = rng
    .shuffle(friends.flatMap((f) => PERSONAL_TOPICS.map((t) => [f, t] as const)))
    .slice(0, 48);
  for (const [f, topic] of personalPairs) {
    add({
      folder: 'inbox',
      kind: 'personal',
      from: f,
      to: [me],
      subject: rng.pick([capitalize(topic), `About ${topic}`, `Re: ${topic}`]),
      body: [
        'Hey Alex!',
        rng.pick([
          `What do you think about ${topic}?`,
          `Just checking in about ${topic}.`,
          `Let me know about ${topic} when you can.`,
        ]),
        rng.pick(['Talk soon!', 'Cheers,', 'Hugs,']),
        f.name.split(' ')[0],
      ],
      attachments: [],
      date: dateIn(rng, 0, 183),
      about: topic,
      facts: { topic, sender: f.name },
    });
  }

  for (const n of NEWSLETTERS) {
    for (let k = 0; k < 7; k++) {
      add({
        folder: 'inbox',
        kind: 'newsletter',
        from: company(n.name, n.email),
        to: [me],
        subject: rng.pick(n.subjects),
        body: [
          `${n.name}`,
          'Here is what you need to know today.',
          'Read more on our website.',
          'Unsubscribe | Manage preferences',
        ],
        attachments: [],
        date: dateIn(rng, 0, 183),
        about: `the ${n.name} newsletter`,
        facts: { sender: n.name },
        read: !rng.bool(0.7),
      });
    }
  }

  for (let k = 0; k < 26; k++) {
    const f = rng.pick(FINANCE);
    const amount = `${rng.int(8, 480)}.${String(rng.int(0, 99)).padStart(2, '0')}`;
    const who = rng.pick(friends).name;
    const subject =
      f.name === 'Venmo'
        ? `You paid ${who} $${amount}`
        : f.name === 'PayPal'
          ? `Receipt for your payment of $${amount}`
          : rng.pick(['Your statement is ready', 'Your payment was received', 'Large purchase alert']);
    add({
      folder: 'inbox',
      kind: 'finance',
      from: company(f.name, f.email),
      to: [me],
      subject,
      body: ['Hi Alex,', `${subject}.`, `Amount: $${amount}`, 'Thanks for being a customer.'],
      attachments: [],
      date: dateIn(rng, 0, 183),
      about: subject,
      facts: { amount, sender: f.name },
    });
  }

  for (let k = 0; k < 20; k++) {
    const a = rng.pick(APPOINTMENTS);
    const day = futureDay(rng);
    const time = `${rng.int(8, 11)}:${rng.pick(['00', '15', '30', '45'])} ${rng.pick(['AM', 'PM'])}`;
    add({
      folder: 'inbox',
      kind: 'appointment',
      from: company(a.name, a.email),
      to: [me],
      subject: `Appointment reminder: ${day}`,
      body: [
        'Hello Alex,',
        `This is a reminder of your ${a.what} with ${a.with} on ${day} at ${time}.`,
        'Reply C to confirm or call us to reschedule.',
      ],
      attachments: [],
      date: dateIn(rng, 120, 183),
      about: `your ${a.what}`,
      facts: { day, time, sender: a.name },
    });
  }

  for (let k = 0; k < 30; k++) {
    const [subject, text] = rng.pick(SPAM);
    const dom = `${code(rng, 7, 'abcdefghijklmnopqrstuvwxyz')}.${rng.pick(['biz', 'top', 'info', 'xyz'])}`;
    add({
      folder: 'spam',
      kind: 'spam',
      from: company(
        rng.pick(['Rewards Center', 'Account Security', 'Prize Dept', 'Delivery Notice', 'Health Tips']),
        `no-reply@${dom}`,
      ),
      to: [me],
      subject,
      body: [text],
      attachments: [],
      date: dateIn(rng, 150, 183),
      about: subject,
      facts: {},
    });
  }
  for (const m of MISFILED) {
    add({
      folder: 'spam',
      kind: 'misfiled',
      from: company(m.name, m.email),
      to: [me],
      subject: m.subject,
      body: ['Hi Alex,', m.body, `- ${m.name}`],
      attachments: [],
      date: dateIn(rng, 140, 183),
      about: `the "${m.subject}" email from ${m.name}`,
      facts: { sender: m.name },
    });
  }

  // Mail the user sent: replies to some of the threads above.
  const repliedTo = drafts.filter((m) => m.kind === 'work' || m.kind === 'personal').slice(0, 40);
  for (const m of repliedTo) {
    add({
      folder: 'sent',
      kind: 'sent',
      from: me,
      to: [m.from],
      subject: m.subject.startsWith('Re:') ? m.subject : `Re: ${m.subject}`,
      body: [
        rng.pick(['Thanks, will do.', 'Sounds good!', 'Got it, talk soon.', 'Sure, let me check.']),
        'Alex',
      ],
      attachments: [],
      date: new Date(Date.parse(m.date) + rng.int(1, 20) * 3_600_000).toISOString(),
      about: m.subject,
      facts: {},
      read: true,
    });
  }
  for (const t of [
    'Notes for the offsite',
    'Vacation ideas',
    'Draft: feedback for Jordan',
    'Questions for the landlord',
  ]) {
    add({
      folder: 'drafts',
      kind: 'draft',
      from: me,
      to: [],
      subject: t,
      body: ['(draft)'],
      attachments: [],
      date: dateIn(rng, 170, 183),
      about: t,
      facts: {},
      read: true,
    });
  }

  // Older mail is often archived; recent mail is often unread.
  const messages: Message[] = drafts
    .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0))
    .map((m, i) => {
      const recent = m.date >= '2027-01-12';
      const archivable =
        ['work', 'personal', 'order', 'finance', 'newsletter'].includes(m.kind) && m.date < '2026-11-15';
      const labels: string[] = [];
      if ((m.kind === 'flight' || m.kind === 'hotel') && rng.bool(0.5)) labels.push('Travel');
      if (m.kind === 'order' && rng.bool(0.4)) labels.push('Receipts');
      if ((m.kind === 'invoice' || m.kind === 'finance') && rng.bool(0.35)) labels.push('Finance');
      if (m.kind === 'work' && rng.bool(0.2)) labels.push('Work');
      return {
        ...m,
        id: `m${1001 + i}`,
        folder: m.folder === 'inbox' && archivable && rng.bool(0.35) ? 'archive' : m.folder,
        read:
          m.read ??
          (m.kind === 'spam' || m.kind === 'misfiled'
            ? rng.bool(0.2)
            : recent
              ? !rng.bool(0.6)
              : !rng.bool(0.06)),
        starred: m.kind !== 'spam' && rng.bool(0.05),
        labels,
      } as Message;
    });
  return {
    me,
    contacts: [...colleagues, ...friends],
    messages,
    byId: new Map(messages.map((m) => [m.id, m])),
    today: '2027-02-01',
  };
}

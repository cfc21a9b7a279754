/** Content banks of the mail site: senders, topics and phrases that seeded messages are built from. */

export const ME = { name: 'Alex Morgan', email: 'alex.morgan@postbox.com' };

export const COLLEAGUE_DOMAIN = 'northwindlabs.com';

/** Contacts with deliberate near-duplicates (Chris Park / Chris Parker) for autocomplete traps. */
export const LOOKALIKE_CONTACTS: Array<[string, string]> = [
  ['Chris Park', 'Chris Parker'],
  ['Sam Lee', 'Samantha Lee'],
  ['Dana Whitfield', 'Dana Whitman'],
  ['Jordan Kim', 'Jordan Kimball'],
  ['Maria Lopez', 'Mario Lopez'],
  ['Ben Carter', 'Bena Carter'],
  ['Nina Patel', 'Nina Patil'],
  ['Tom Reyes', 'Tomas Reyes'],
];

export const AIRLINES = [
  { name: 'Delta Air Lines', short: 'Delta', email: 'noreply@delta.com', code: 'DL' },
  { name: 'United Airlines', short: 'United', email: 'unitedairlines@united.com', code: 'UA' },
  { name: 'American Airlines', short: 'American Airlines', email: 'no-reply@aa.com', code: 'AA' },
  {
    name: 'Southwest Airlines',
    short: 'Southwest',
    email: 'southwestairlines@luv.southwest.com',
    code: 'WN',
  },
  { name: 'Alaska Airlines', short: 'Alaska Airlines', email: 'reservations@alaskaair.com', code: 'AS' },
  { name: 'JetBlue', short: 'JetBlue', email: 'reservations@jetblue.com', code: 'B6' },
];

export const CITIES = [
  ['Denver', 'DEN'],
  ['Boston', 'BOS'],
  ['Seattle', 'SEA'],
  ['San Francisco', 'SFO'],
  ['Los Angeles', 'LAX'],
  ['Miami', 'MIA'],
  ['Atlanta', 'ATL'],
  ['Austin', 'AUS'],
  ['Nashville', 'BNA'],
  ['Phoenix', 'PHX'],
  ['Portland', 'PDX'],
  ['New York', 'JFK'],
  ['Minneapolis', 'MSP'],
  ['Salt Lake City', 'SLC'],
  ['San Diego', 'SAN'],
  ['Orlando', 'MCO'],
  ['Dallas', 'DFW'],
  ['Raleigh', 'RDU'],
  ['Honolulu', 'HNL'],
  ['Charlotte', 'CLT'],
  ['Detroit', 'DTW'],
  ['Philadelphia', 'PHL'],
  ['Washington', 'DCA'],
  ['New Orleans', 'MSY'],
] as const;

export const HOTELS = [
  { name: 'Marriott Bonvoy', short: 'Marriott', email: 'reservations@marriott.com', kind: 'hotel stay' },
  { name: 'Hilton Honors', short: 'Hilton', email: 'reservations@hilton.com', kind: 'hotel stay' },
  { name: 'Hyatt', short: 'Hyatt', email: 'reservations@hyatt.com', kind: 'hotel stay' },
  { name: 'Airbnb', short: 'Airbnb', email: 'automated@airbnb.com', kind: 'Airbnb stay' },
  { name: 'Booking.com', short: 'Booking.com', email: 'noreply@booking.com', kind: 'booking' },
];

export const STORES = [
  { name: 'Amazon.com', short: 'Amazon', email: 'shipment-tracking@amazon.com', carrier: 'UPS' },
  { name: 'Target', short: 'Target', email: 'orders@target.com', carrier: 'FedEx' },
  { name: 'Best Buy', short: 'Best Buy', email: 'BestBuyInfo@emailinfo.bestbuy.com', carrier: 'UPS' },
  { name: 'REI Co-op', short: 'REI', email: 'rei@notices.rei.com', carrier: 'FedEx' },
  { name: 'Etsy', short: 'Etsy', email: 'transaction@etsy.com', carrier: 'USPS' },
  { name: 'Wayfair', short: 'Wayfair', email: 'orders@wayfair.com', carrier: 'FedEx' },
  { name: 'Apple', short: 'Apple', email: 'order_acknowledgment@orders.apple.com', carrier: 'UPS' },
  { name: 'Nike', short: 'Nike', email: 'nike@official.nike.com', carrier: 'USPS' },
];

export const PRODUCTS = [
  'Instant Pot Duo 6-Quart',
  'Kindle Paperwhite',
  'Anker USB-C Charger',
  'Logitech MX Master 3S Mouse',
  'Yeti Rambler Tumbler',
  'Dyson V8 Vacuum',
  'Bose QuietComfort Headphones',
  'Lodge Cast Iron Skillet',
  'Patagonia Nano Puff Jacket',
  'Osprey Daylite Backpack',
  'Hydro Flask 32 oz',
  'Apple AirTag 4-pack',
  'Nike Pegasus 41 Running Shoes',
  'Ninja Air Fryer',
  'Brooks Ghost 16',
  'Philips Hue Starter Kit',
  'Ring Video Doorbell',
  'Samsung T7 SSD 1TB',
  'Keurig K-Mini',
  'Vitamix Explorian Blender',
  'Le Creuset Dutch Oven',
  'Black Diamond Headlamp',
  'Sony WH-1000XM5',
  'iPad Air Smart Folio',
  'Ceramic Plant Pot Set',
  'Handmade Leather Journal',
  'Walnut Cutting Board',
  'Linen Duvet Cover',
  'Standing Desk Converter',
  'Weighted Blanket 15 lb',
  'Nespresso Vertuo Pop',
  'Garmin Forerunner 265',
  'Theragun Mini',
  'Coleman Camping Stove',
  'Oral-B iO Toothbrush',
  'Velvet Accent Chair',
  'Smartwool Hiking Socks',
  'Moleskine Planner 2027',
  'JBL Flip 6 Speaker',
  'Carhartt Beanie',
  'Cuisinart Coffee Grinder',
  'Bamboo Bath Mat',
  'Gaiam Yoga Mat',
  'Pyrex Storage Set',
  'Fitbit Charge 6',
  'Hamilton Beach Kettle',
  'Rubbermaid Shelf Organizer',
  'Apple Pencil Pro',
  'Nike Club Fleece Hoodie',
  'Wool Throw Blanket',
  'LEGO Botanical Bouquet',
  'Eufy Robot Vacuum',
  'Corsair Mechanical Keyboard',
  'Zojirushi Rice Cooker',
  'Turkish Cotton Towels',
  'Marmot Rain Jacket',
];

export const VENDORS = [
  { name: 'Brightline Design', email: 'billing@brightlinedesign.co', service: 'Website redesign' },
  { name: 'Harbor Legal Group', email: 'accounts@harborlegal.com', service: 'Legal consultation' },
  { name: 'Summit IT Services', email: 'invoices@summitit.net', service: 'Managed IT support' },
  {
    name: 'Greenleaf Landscaping',
    email: 'office@greenleaflandscaping.com',
    service: 'Lawn and garden care',
  },
  { name: 'Copperline Plumbing', email: 'billing@copperlineplumbing.com', service: 'Plumbing repair' },
  { name: 'Northstar Accounting', email: 'ar@northstaraccounting.com', service: 'Bookkeeping' },
  { name: 'Blue Fern Cleaning', email: 'hello@bluefernclean.com', service: 'Office cleaning' },
  { name: 'Pixel & Pine Studio', email: 'studio@pixelandpine.com', service: 'Product photography' },
  { name: 'Keystone Electric', email: 'billing@keystoneelectric.com', service: 'Electrical work' },
  { name: 'Redwood Consulting', email: 'finance@redwoodconsulting.io', service: 'Strategy consulting' },
  {
    name: 'Clearwater Translation',
    email: 'billing@clearwatertranslate.com',
    service: 'Translation services',
  },
  { name: 'Atlas Moving Co.', email: 'accounts@atlasmoving.com', service: 'Office relocation' },
];

export const WORK_TOPICS = [
  'Q3 budget review',
  'slides for the Thursday offsite',
  'vendor contract renewal',
  'hiring plan for Q2',
  'customer feedback summary',
  'sprint retro notes',
  'updated product roadmap',
  'travel reimbursement',
  'team lunch next week',
  'security training reminder',
  'office move logistics',
  'quarterly OKR draft',
  'board deck numbers',
  'interview schedule',
  'launch checklist',
  'pricing page copy',
  'data migration plan',
  'holiday coverage schedule',
  'analytics dashboard access',
  'partner webinar',
  'API rate limit issue',
  'design review feedback',
  'annual performance reviews',
  'conference booth plan',
  'support ticket backlog',
  'onboarding docs for new hires',
  'sales kickoff agenda',
  'website launch date',
  'expense policy update',
  'Salesforce license count',
];

export const PERSONAL_TOPICS = [
  'dinner on Saturday',
  'photos from the lake trip',
  "Mom's birthday gift",
  'book club pick',
  'soccer carpool',
  'moving help this weekend',
  'fantasy football draft',
  'the wedding RSVP',
  'borrowing your ladder',
  'concert tickets',
  'Thanksgiving plans',
  'the hiking trip in October',
  'dog sitting next week',
  'the baby shower',
  'garage sale',
  'game night on Friday',
];

export const NEWSLETTERS = [
  {
    name: 'Morning Brew',
    email: 'crew@morningbrew.com',
    subjects: [
      'Markets slip as rates hold',
      'The weekend read',
      'Inside the chip race',
      'Retail earnings recap',
    ],
  },
  {
    name: 'NYT Cooking',
    email: 'nytcooking@nytimes.com',
    subjects: [
      'Five new weeknight pastas',
      'Sheet-pan dinners to try',
      'Our best soup recipes',
      'Bake this tonight',
    ],
  },
  {
    name: 'Medium Daily Digest',
    email: 'noreply@medium.com',
    subjects: ['Stories for you', 'Top picks in Productivity', 'Your weekly reading list'],
  },
  {
    name: 'LinkedIn',
    email: 'messages-noreply@linkedin.com',
    subjects: ['You appeared in 14 searches this week', 'New jobs for you', 'Your network is growing'],
  },
  {
    name: 'Strava',
    email: 'no-reply@strava.com',
    subjects: ['Your weekly training summary', 'New segment record', 'Monthly recap'],
  },
  {
    name: 'Spotify',
    email: 'no-reply@spotify.com',
    subjects: ['Your Release Radar is ready', 'New music Friday', 'Concerts near you'],
  },
  {
    name: 'Duolingo',
    email: 'hello@duolingo.com',
    subjects: ["Don't lose your streak!", 'Your weekly progress', 'New lessons unlocked'],
  },
  {
    name: 'The Hustle',
    email: 'news@thehustle.co',
    subjects: ['The weird economics of vending machines', 'Why everyone is buying gold', 'Friday deep dive'],
  },
  {
    name: 'Axios AM',
    email: 'am@axios.com',
    subjects: ['Big picture: the week ahead', '1 big thing', 'Axios AM Deep Dive'],
  },
  {
    name: 'Product Hunt Daily',
    email: 'hello@producthunt.com',
    subjects: ['Top products today', 'The best AI tools this week', 'Makers to follow'],
  },
];

export const APPOINTMENTS = [
  {
    name: 'Bright Smile Dental',
    email: 'reminders@brightsmiledental.com',
    what: 'dental cleaning',
    with: 'Dr. Hannah Ortiz',
  },
  {
    name: 'Lakeview Family Medicine',
    email: 'noreply@lakeviewfm.org',
    what: 'annual physical',
    with: 'Dr. Omar Haddad',
  },
  {
    name: 'Paws & Claws Vet',
    email: 'frontdesk@pawsclawsvet.com',
    what: 'vaccination visit for Biscuit',
    with: 'Dr. Mei Chen',
  },
  {
    name: 'Jiffy Auto Service',
    email: 'service@jiffyauto.com',
    what: 'oil change and tire rotation',
    with: 'the service desk',
  },
  {
    name: 'Clarity Eye Care',
    email: 'appointments@clarityeye.com',
    what: 'eye exam',
    with: 'Dr. Luis Morales',
  },
];

export const FINANCE = [
  { name: 'Chase', email: 'no.reply.alerts@chase.com' },
  { name: 'Venmo', email: 'venmo@venmo.com' },
  { name: 'PayPal', email: 'service@paypal.com' },
  { name: 'Bank of America', email: 'onlinebanking@ealerts.bankofamerica.com' },
];

export const SPAM = [
  [
    "Congratulations! You've won a $1,000 gift card",
    'Claim your reward today before it expires. Click the link to confirm your details.',
  ],
  [
    'URGENT: Your account will be suspended',
    'We detected unusual activity. Verify your password within 24 hours.',
  ],
  ['Lose 20 pounds in 2 weeks', 'Doctors hate this one simple trick.'],
  ['Exclusive crypto opportunity', 'Turn $250 into $25,000 with our trading bot.'],
  ['Your package could not be delivered', 'Pay a $1.99 redelivery fee to reschedule.'],
  ['Re: Invoice overdue', 'Please open the attached file to view the overdue balance.'],
  ['Hot singles in your area', 'Meet people near you tonight.'],
  ['You have (1) pending inheritance', 'A relative has left you $4.5 million. Reply with your bank details.'],
  ['Cheap meds, no prescription', 'Order today, ships discreetly.'],
  ['Final notice: car warranty', 'Your vehicle warranty is about to expire.'],
];

/** Legitimate senders whose mail was misfiled as spam (spam-rescue tasks). */
export const MISFILED = [
  {
    name: 'Greg Watts',
    email: 'greg@maplecourtapts.com',
    subject: 'Rent receipt for January',
    body: 'Hi Alex, attached is your rent receipt for January. Thanks for paying on time.',
  },
  {
    name: 'Lincoln Elementary PTA',
    email: 'pta@lincolnelementary.org',
    subject: 'Spring fundraiser volunteers',
    body: 'We are looking for volunteers for the spring fundraiser on March 14.',
  },
  {
    name: 'City of Springfield Utilities',
    email: 'billing@springfieldutilities.gov',
    subject: 'Your water bill is ready',
    body: 'Your water bill of $48.20 is due on February 20.',
  },
  {
    name: 'Dr. Omar Haddad',
    email: 'ohaddad@lakeviewfm.org',
    subject: 'Lab results available',
    body: 'Your recent lab results are available in the patient portal.',
  },
  {
    name: 'Coach Rivera',
    email: 'rivera.coach@gmail.com',
    subject: 'Practice moved to Thursday',
    body: 'Practice is moved to Thursday at 5:30 this week because of the field repairs.',
  },
  {
    name: 'HR Team',
    email: 'hr@northwindlabs.com',
    subject: 'Open enrollment closes Friday',
    body: 'Reminder: benefits open enrollment closes this Friday at 5 PM.',
  },
  {
    name: 'Ridgeview HOA',
    email: 'board@ridgeviewhoa.org',
    subject: 'Annual meeting agenda',
    body: 'The annual HOA meeting is on February 12 at 7 PM in the clubhouse.',
  },
  {
    name: 'State Farm',
    email: 'noreply@statefarm.com',
    subject: 'Your auto policy renewal',
    body: 'Your auto policy renews on March 1. No action is needed.',
  },
  {
    name: 'Sunrise Preschool',
    email: 'office@sunrisepreschool.org',
    subject: 'Picture day is next week',
    body: 'Picture day is next Tuesday. Order forms are due Monday.',
  },
  {
    name: 'Westside Library',
    email: 'notices@westsidelibrary.org',
    subject: 'Your hold is ready for pickup',
    body: 'The book you placed on hold is ready at the front desk for 7 days.',
  },
  {
    name: 'Karen Novak',
    email: 'karen.novak@gmail.com',
    subject: 'Recipe you asked for',
    body: 'Here is the lasagna recipe from Sunday, enjoy!',
  },
  {
    name: 'Fidelity Investments',
    email: 'fidelity.alerts@fidelity.com',
    subject: 'Your tax documents are ready',
    body: 'Your 2026 tax forms are now available online.',
  },
];

export const LABELS = ['Travel', 'Receipts', 'Finance', 'Work', 'Family', 'Follow up'];

/** Reply phrases (reply tasks); each is what the user asks to say. */
export const REPLY_LINES = [
  "Thanks, I'll review it by Friday.",
  'Sounds good to me, go ahead.',
  "I can't make it this week, can we do next Tuesday?",
  "I'll send the numbers by end of day tomorrow.",
  'Please loop in Priya from finance.',
  'Looks great, approved.',
  "Let's discuss this at Monday's standup.",
  'Can you share the latest version?',
  'I am out on Thursday, Friday works.',
  'Count me in!',
  "I'll call you this afternoon.",
  'Could you resend the attachment? It did not come through.',
  'Yes, 3 PM works for me.',
  'Thanks for the reminder, done.',
  'Let me check with the team and get back to you.',
  'Please go with the second option.',
];

/** Compose tasks: subject and message pairs. */
export const COMPOSE_LINES: Array<[string, string]> = [
  ['Lunch on Thursday', 'Are you free for lunch on Thursday at noon?'],
  ['Weekend plans', 'Want to go hiking on Saturday morning?'],
  ['Quick question', 'Do you have the contact for the plumber you used?'],
  ['Meeting notes', 'I will share the meeting notes by tomorrow.'],
  ['Book recommendation', 'You should read Project Hail Mary, I loved it.'],
  ['Running late', 'I am running 15 minutes late, start without me.'],
  ['Happy birthday', 'Happy birthday! Hope you have a great day.'],
  ['Invoice question', 'Can you confirm the invoice was paid last week?'],
  ['Thank you', 'Thanks again for your help with the move.'],
  ['Call tomorrow', 'Can we move our call to 10 AM tomorrow?'],
  ['Dinner reservation', 'I booked a table for four at 7 PM on Friday.'],
  ['Project update', 'The first draft is ready for your review.'],
];

export const FORWARD_NOTES = [
  'FYI, see below.',
  'Can you take a look at this?',
  'Forwarding for your records.',
  'Please handle this one.',
  'Here are the details we talked about.',
  'Sharing this in case it helps.',
];

export const VACATION_MESSAGES = [
  "I'm out of the office and will reply when I return.",
  'I am on vacation with limited access to email.',
  'I am away this week. For urgent matters contact Priya Shah.',
  "Thanks for your email. I'm traveling and will respond next week.",
  'I am out of office until my return date and will answer then.',
  'On leave with no email access. I will get back to you soon.',
];

export const JOB_TITLES = [
  'Senior Analyst',
  'Product Manager',
  'Operations Lead',
  'Marketing Director',
  'Account Executive',
  'Data Scientist',
  'Engineering Manager',
  'Customer Success Manager',
  'Finance Manager',
  'UX Researcher',
];

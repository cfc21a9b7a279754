import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { WorldServer } from '../../server.ts';
import { HttpSession } from '../../testing/http-session.ts';
import { describeRun, sampleByTemplate, WorldHarness } from '../../testing/solve-harness.ts';
import { World } from '../../world.ts';
import { flightById, flightsFor, type TravelData } from './data.ts';
import { filterFlights } from './listing.ts';
import type { TravelState } from './state.ts';

const world = new World(1);
const travel = world.sites.get('travel')!;
const data = travel.data as TravelData;

describe('travel site over HTTP', () => {
  let server: WorldServer;
  beforeAll(async () => {
    server = await WorldServer.start({ port: 0, world });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('generates the same flights for a route and date, and finds them by id', () => {
    expect(data.airports.length).toBeGreaterThanOrEqual(40);
    expect(data.hotels.length).toBeGreaterThanOrEqual(300);
    const a = flightsFor(data, 'BOS', 'DEN', '2027-03-12');
    expect(a.length).toBeGreaterThanOrEqual(8);
    expect(flightsFor(data, 'BOS', 'DEN', '2027-03-12')).toEqual(a);
    expect(flightById(data, a[3].id)).toEqual(a[3]);
    expect(flightsFor(data, 'BOS', 'DEN', '2027-03-13')).not.toEqual(a);
    const ns = filterFlights(a, { nonstop: true, sort: 'price' });
    expect(ns.every((f) => f.stops === 0)).toBe(true);
    expect(ns.map((f) => f.price)).toEqual([...ns.map((f) => f.price)].sort((x, y) => x - y));
  });

  it('needs an airport chosen from the suggestions', async () => {
    const s = new HttpSession(server.url);
    const sug = await s.get('/travel/api/airports?q=new%20y');
    expect((sug.json as Array<{ value: string }>).map((x) => x.value).sort()).toEqual(['JFK', 'LGA']);
    const typed = await s.get(
      '/travel/flights?from_label=Boston&from=&to_label=Denver&to=DEN&date=2027-03-12&pax=1',
    );
    expect(typed.status).toBe(400);
    expect(typed.text).toContain('Choose a departure airport from the list of suggestions.');
    expect(typed.text).toContain('value="Boston"');
  });

  it('loads results after a delay, with the fare rules in a new tab', async () => {
    const s = new HttpSession(server.url);
    const page = await s.get('/travel/flights?from=BOS&to=DEN&date=2027-03-12&pax=1');
    expect(page.text).toContain('data-delayed-src="/travel/flights/results?');
    expect(page.text).toContain('role="status"');
    const t0 = Date.now();
    const frag = await s.get('/travel/flights/results?from=BOS&to=DEN&date=2027-03-12&pax=1&sort=duration');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    expect(frag.text).toContain('Select flight');
    const f = flightsFor(data, 'BOS', 'DEN', '2027-03-12')[0];
    const detail = await s.get(`/travel/flight/${f.id}?pax=1`);
    expect(detail.text).toMatch(/href="\/travel\/fare-rules\/\w+\?airline=\w+" target="_blank"/);
  });

  it('validates a flight booking and records it in My trips', async () => {
    const s = new HttpSession(server.url);
    const f = flightsFor(data, 'SEA', 'AUS', '2027-04-02')[1];
    const base = {
      pax: '1',
      p1_first: 'Mia',
      p1_last: 'Chen',
      email: 'mia@example.com',
      phone: '(206) 555-0199',
      seat: 'aisle',
      bags: '0',
    };
    const bad = await s.post(`/travel/book/${f.id}`, { ...base, p1_dob: 'March 4, 1990' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Enter the date of birth as MM/DD/YYYY.');
    expect(bad.text).toContain('Please accept the fare rules.');
    const ok = await s.post(`/travel/book/${f.id}`, { ...base, p1_dob: '03/04/1990', accept: '1' });
    expect(ok.text).toContain('Booking confirmed');
    const state = await s.state<TravelState>('travel');
    expect(state.flights).toHaveLength(1);
    expect(state.flights[0]).toMatchObject({
      flightId: f.id,
      seat: 'aisle',
      passengers: [{ first: 'Mia', last: 'Chen', dob: '03/04/1990' }],
    });
  });

  it('filters hotels by exact star class and checks room capacity', async () => {
    const s = new HttpSession(server.url);
    const list = await s.get('/travel/hotels?city=lisbon&stars=4');
    const stars = [...list.text.matchAll(/aria-label="(\d) stars"/g)].map((m) => Number(m[1]));
    expect(stars.length).toBeGreaterThan(0);
    expect(stars.every((n) => n === 4)).toBe(true);
    const h = data.hotels.find((x) => x.rooms.some((r) => r.maxGuests === 2))!;
    const room = h.rooms.find((r) => r.maxGuests === 2)!;
    const bad = await s.post(`/travel/hotel/${h.id}/book`, {
      room: room.id,
      checkin: '2027-03-10',
      checkout: '2027-03-12',
      guests: '3',
      first: 'A',
      last: 'B',
      email: 'a@b.co',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain(`sleeps at most 2`);
  });

  it('has at least 200 raw queries grounded in its templates', () => {
    const qs = travel.rawQueries(new Rng(1));
    const ids = new Set(travel.templates.map((t) => t.id));
    expect(qs.length).toBeGreaterThanOrEqual(200);
    expect(qs.every((q) => ids.has(q.grounding.template))).toBe(true);
  });
});

describe('travel reference solvers in Chromium', () => {
  let h: WorldHarness;
  beforeAll(async () => {
    h = await WorldHarness.open();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('solves a sampled task of every template', async () => {
    const tasks = sampleByTemplate(h.tasks({ site: 'travel' }), 1, 'travel-ci');
    expect(new Set(tasks.map((t) => t.category)).size).toBe(travel.templates.length);
    const runs = [];
    for (const t of tasks) runs.push(await h.solve(t));
    expect(runs.filter((r) => !r.verdict.success).map(describeRun)).toEqual([]);
    for (const r of runs)
      expect(Math.abs(r.actions - (r.task.referenceLength ?? 0)), describeRun(r)).toBeLessThanOrEqual(3);
  }, 180_000);
});

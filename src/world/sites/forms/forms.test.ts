import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import type { Task } from '../../../core/task.ts';
import { WorldServer } from '../../server.ts';
import { generateWorldTasks } from '../../tasks.ts';
import { HttpSession } from '../../testing/http-session.ts';
import { describeRun, sampleByTemplate, WorldHarness } from '../../testing/solve-harness.ts';
import { World } from '../../world.ts';
import { stateName } from '../people.ts';
import { type FormsData, personaFacts } from './data.ts';
import { SERVICES } from './services.ts';
import type { FormsState } from './state.ts';
import { normalizeDate, validateField } from './validate.ts';

const world = new World(1);
const forms = world.sites.get('forms')!;
const data = forms.data as FormsData;
const tasks = generateWorldTasks({ world, site: 'forms' });
const taskOf = (template: string): Task =>
  tasks.find((t) => t.verifier.kind === 'world' && t.verifier.template === template && t.split === 'train')!;
const paramsOf = (t: Task) => (t.verifier as { params: any }).params;

describe('forms site over HTTP', () => {
  let server: WorldServer;
  beforeAll(async () => {
    server = await WorldServer.start({ port: 0, world });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('validates formats: dates against the calendar, ZIP, phone, IDs', () => {
    const f = (name: string) =>
      SERVICES.flatMap((s) => s.steps.flatMap((st) => st.fields)).find((x) => x.name === name)!;
    expect(normalizeDate('2/30/2020')).toBeNull();
    expect(normalizeDate('4/2/1985')).toBe('04/02/1985');
    expect(validateField(f('dob'), '13/01/1990')).toEqual({ error: 'Enter a real date as MM/DD/YYYY.' });
    expect(validateField(f('zip'), '6270')).toEqual({ error: 'Enter a 5-digit ZIP code.' });
    expect(validateField(f('phone'), '217.555.0100')).toEqual({ value: '(217) 555-0100' });
    expect(validateField(f('passport_number'), '12345678')).toHaveProperty('error');
    expect(validateField(f('ein'), '12-3456789')).toEqual({ value: '12-3456789' });
    expect(validateField(f('monthly_income'), '$1,850.00')).toEqual({ value: '1850' });
  });

  it('re-renders a step with errors and kept values, and only validates shown conditional fields', async () => {
    const s = new HttpSession(server.url);
    const home = await s.get('/forms/');
    expect(home.text).toContain('class="cookie-banner"');
    await s.post('/forms/apply/passport-renewal/start', {});
    const bad = await s.post('/forms/apply/passport-renewal/step/1', {
      first_name: 'Ana',
      last_name: '',
      dob: '02/30/1990',
      passport_number: '123',
      name_changed: 'No',
      action: 'continue',
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('There is a problem');
    expect(bad.text).toContain('Enter a real date as MM/DD/YYYY.');
    expect(bad.text).toContain('Passport numbers have exactly 9 digits.');
    expect(bad.text).toContain('value="Ana"');
    const needPrev = await s.post('/forms/apply/passport-renewal/step/1', {
      first_name: 'Ana',
      last_name: 'Lee',
      dob: '02/03/1990',
      passport_number: '512345678',
      name_changed: 'Yes',
      action: 'continue',
    });
    expect(needPrev.status).toBe(422);
    expect(needPrev.text).toContain('f-previous_last_name-error');
    const ok = await s.post('/forms/apply/passport-renewal/step/1', {
      first_name: 'Ana',
      last_name: 'Lee',
      dob: '02/03/1990',
      passport_number: '512345678',
      name_changed: 'No',
      action: 'continue',
    });
    expect(ok.url).toContain('/step/2');
    const skip = await s.get('/forms/apply/passport-renewal/review');
    expect(skip.url).toContain('/step/2');
  });

  it('needs the declaration to submit, then issues a confirmation number and verifies the task', async () => {
    const task = taskOf('forms.library-card');
    const p = paramsOf(task);
    const who = data.personas.find((x) => x.id === p.personaId)!;
    const s = new HttpSession(server.url);
    await s.post('/forms/apply/library-card/start', {});
    await s.post('/forms/apply/library-card/step/1', {
      first_name: who.first,
      last_name: who.last,
      dob: who.dob,
      email: who.email,
      action: 'continue',
    });
    const review = await s.post('/forms/apply/library-card/step/2', {
      street: who.street,
      zip: who.zip,
      branch: p.branch,
      action: 'continue',
    });
    expect(review.text).toContain('data-enables="submit-btn"');
    expect(review.text).toMatch(/id="submit-btn" type="submit" disabled/);
    const refused = await s.post('/forms/apply/library-card/submit', {});
    expect(refused.status).toBe(422);
    const done = await s.post('/forms/apply/library-card/submit', { declare: 'yes' });
    const conf = /LIB-2027-\d{6}/.exec(done.text)?.[0];
    expect(conf).toBeTruthy();
    const st = await s.state<FormsState>('forms');
    expect(st.submitted[0].confirmation).toBe(conf);
    expect(world.verify(task, s.id, `Confirmation ${conf}`).success).toBe(true);
    const noAnswer = world.verify(task, s.id, null);
    expect(noAnswer.failedConditions).toEqual(['answer.given', 'answer.confirmation']);
    const apps = await s.get('/forms/applications');
    expect(apps.text).toContain(conf!);
  });

  it('names the wrong field group and scores partially', async () => {
    const task = taskOf('forms.parking-permit');
    const p = paramsOf(task);
    const who = data.personas.find((x) => x.id === p.personaId)!;
    const v = data.vehicles.find((x) => x.id === p.vehicleId)!;
    const f = personaFacts(who);
    const s = new HttpSession(server.url);
    await s.post('/forms/apply/parking-permit/start', {});
    const wrongZone = p.zone === 'Zone A' ? 'Zone B' : 'Zone A';
    await s.post('/forms/apply/parking-permit/step/1', {
      zone: wrongZone,
      duration: p.duration,
      action: 'continue',
    });
    await s.post('/forms/apply/parking-permit/step/2', {
      plate: f.plate,
      plate_state: stateName(who.state),
      make: v.make,
      model: v.model,
      year: String(v.year),
      action: 'continue',
    });
    await s.post('/forms/apply/parking-permit/step/3', {
      first_name: who.first,
      last_name: who.last,
      street: who.street,
      zip: who.zip,
      phone: who.phone,
      action: 'continue',
    });
    const done = await s.post('/forms/apply/parking-permit/submit', { declare: 'yes' });
    const conf = /RPP-2027-\d{6}/.exec(done.text)![0];
    const verdict = world.verify(task, s.id, conf);
    expect(verdict.failedConditions).toEqual(['app.permit']);
    expect(verdict.score).toBeCloseTo(5 / 6);
  });

  it('looks up an application status with format validation', async () => {
    const s = new HttpSession(server.url);
    const bad = await s.post('/forms/status', { confirmation: '12345', last_name: '' });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('Enter a confirmation number like');
    const rec = data.statuses[3];
    const wrongName = await s.post('/forms/status', { confirmation: rec.confirmation, last_name: 'Nobody' });
    expect(wrongName.text).toContain('We could not find an application');
    const ok = await s.post('/forms/status', {
      confirmation: rec.confirmation.toLowerCase(),
      last_name: rec.lastName.toUpperCase(),
    });
    expect(ok.text).toContain(`<strong>Status:</strong> ${rec.status}`);
  });

  it('hides fee categories behind tabs and verifies fee answers by number', async () => {
    const s = new HttpSession(server.url);
    const page = await s.get('/forms/fees');
    expect(page.text.match(/role="tab"/g)?.length).toBeGreaterThanOrEqual(5);
    expect(page.text.match(/class="hidden"/g)?.length).toBeGreaterThanOrEqual(4);
    const task = taskOf('forms.fee-lookup');
    const fee = data.fees.find((f) => f.id === paramsOf(task).feeId)!;
    expect(world.verify(task, s.id, `It costs $${fee.amount}.00`).success).toBe(true);
    expect(world.verify(task, s.id, `It costs $${fee.amount + 7}`).failedConditions).toEqual(['answer.fee']);
  });

  it('generates every template with disjoint splits, 2-20 steps, and 200+ grounded raw queries', () => {
    const templates = new Set(tasks.map((t) => (t.verifier as { template: string }).template));
    expect(templates.size).toBe(forms.templates.length);
    expect(forms.templates.length).toBeGreaterThanOrEqual(8);
    expect(tasks.every((t) => (t.referenceLength ?? 0) >= 2 && (t.referenceLength ?? 0) <= 20)).toBe(true);
    const train = new Set(
      tasks
        .filter((t) => t.split === 'train')
        .map((t) => `${(t.verifier as { template: string }).template}|${t.meta?.splitKey}`),
    );
    expect(
      tasks
        .filter((t) => t.split === 'test')
        .some((t) => train.has(`${(t.verifier as { template: string }).template}|${t.meta?.splitKey}`)),
    ).toBe(false);
    const qs = forms.rawQueries(new Rng(2));
    expect(qs.length).toBeGreaterThanOrEqual(200);
    expect(
      qs.every((q) =>
        forms.templates.find((x) => x.id === q.grounding.template)?.draftFor?.(q.grounding.params, data),
      ),
    ).toBe(true);
  });
});

describe('forms reference solvers in Chromium', () => {
  let h: WorldHarness;
  beforeAll(async () => {
    h = await WorldHarness.open();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('solves a sampled task of every template', async () => {
    const sample = sampleByTemplate(h.tasks({ site: 'forms' }), 1, 'forms-ci');
    expect(new Set(sample.map((t) => t.category)).size).toBe(forms.templates.length);
    const runs = [];
    for (const t of sample) runs.push(await h.solve(t));
    expect(runs.filter((r) => !r.verdict.success).map(describeRun)).toEqual([]);
    for (const r of runs) expect(Math.abs(r.actions - (r.task.referenceLength ?? 0))).toBeLessThanOrEqual(3);
  }, 240_000);
});

import { answered, cond, containsCode, normalizeText } from '../../match.ts';
import type { Condition, TaskTemplate } from '../../site.ts';
import { poolTemplate } from '../../template-kit.ts';
import type { Persona } from '../people.ts';
import { type FormsData, personaFacts } from './data.ts';
import { service } from './services.ts';
import { applyLength, type FillOp, solveApplication } from './solve.ts';
import type { FormsState, Submission } from './state.ts';

/** Everything an application template derives from its parameters. */
export interface ApplicationPlan {
  objective: string;
  /** Expected stored answers (normalized like the form stores them), by field name. */
  expected: Record<string, string>;
  /** Condition id suffix -> the fields it checks; `app.<group>` holds when all of them match. */
  groups: Record<string, string[]>;
  /** What the reference solver fills on each wizard step. */
  steps: FillOp[][];
}

export interface ApplicationSpec<P extends { personaId: string }> {
  id: string;
  serviceId: string;
  description: string;
  pool(data: FormsData): P[];
  plan(params: P, persona: Persona, facts: ReturnType<typeof personaFacts>, data: FormsData): ApplicationPlan;
}

function persona(data: FormsData, id: string): Persona {
  const p = data.personas.find((x) => x.id === id);
  if (!p) throw new Error(`unknown persona ${id}`);
  return p;
}

function same(a: string | undefined, b: string): boolean {
  return normalizeText(a ?? '') === normalizeText(b);
}

/** How many expected answers a submission got right (to pick the submission an agent meant). */
function score(s: Submission, expected: Record<string, string>): number {
  return Object.entries(expected).filter(([k, v]) => same(s.answers[k], v)).length;
}

/**
 * Verifies a submitted application: it exists, each group of fields matches, and the answer
 * reports its confirmation number. With several submissions of the service, the closest counts.
 */
export function verifyApplication(
  serviceId: string,
  plan: ApplicationPlan,
  state: FormsState,
  answer: string | null,
): Condition[] {
  const subs = state.submitted.filter((s) => s.service === serviceId);
  const best = subs.sort((a, b) => score(b, plan.expected) - score(a, plan.expected))[0];
  const out: Condition[] = [cond('app.submitted', !!best, `no ${serviceId} application was submitted`)];
  for (const [group, fields] of Object.entries(plan.groups)) {
    const wrong = fields.filter((f) => !best || !same(best.answers[f], plan.expected[f] ?? ''));
    out.push(
      cond(
        `app.${group}`,
        !!best && wrong.length === 0,
        best
          ? `wrong: ${wrong.map((f) => `${f}=${JSON.stringify(best.answers[f] ?? '')} (want ${JSON.stringify(plan.expected[f] ?? '')})`).join(', ')}`
          : 'not submitted',
      ),
    );
  }
  out.push(answered(answer));
  out.push(
    cond(
      'answer.confirmation',
      !!best && containsCode(answer, best.confirmation),
      best ? `expected ${best.confirmation}` : 'nothing submitted',
    ),
  );
  return out;
}

/** Builds a pool template for one application wizard. */
export function applicationTemplate<P extends { personaId: string }>(
  spec: ApplicationSpec<P>,
): TaskTemplate<P, FormsState, FormsData> {
  const s = service(spec.serviceId);
  if (!s) throw new Error(`unknown service ${spec.serviceId}`);
  const planOf = (p: P, data: FormsData) => {
    const who = persona(data, p.personaId);
    return spec.plan(p, who, personaFacts(who), data);
  };
  return poolTemplate<P, FormsState, FormsData>({
    id: spec.id,
    description: spec.description,
    pool: spec.pool,
    splitKey: (p) => p.personaId,
    word: (p, data) => {
      const plan = planOf(p, data);
      return {
        objective: plan.objective,
        startPath: `/services/${s.id}`,
        referenceLength: applyLength(plan.steps),
      };
    },
    verify: (p, state, answer, data) => verifyApplication(s.id, planOf(p, data), state, answer),
    solve: (p, d, data) => solveApplication(d, planOf(p, data).steps),
  });
}

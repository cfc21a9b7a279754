import { beforeAll, describe, expect, it } from 'vitest';
import { parseAgentOutput } from '../core/agent-output.ts';
import { Rng } from '../core/rng.ts';
import { policyAct } from './policy-act.ts';
import { createStudentPolicy, type LocalStudentPolicy } from './student-policy.ts';
import { tinyState } from './testing/synthetic.ts';

let policy: LocalStudentPolicy;
beforeAll(async () => {
  policy = await createStudentPolicy({ model: { seed: 2 } });
});

describe('policyAct', () => {
  it('wraps the greedy or sampled action as a valid agent output with its exact log-prob', () => {
    const state = { ...tinyState(), history: [{ type: 'scroll' as const, down: true, pages: 1 }] };
    const g = policyAct(policy, state);
    const { actions } = parseAgentOutput(g.output);
    expect(actions[0]).toEqual(g.action);
    expect(g.logProb).toBeCloseTo(policy.logProb(state, g.action), 4);
    expect(g.output.memory).toMatch(/^Steps taken: 2\. scroll\(down, 1\); /);
    const s1 = policyAct(policy, state, { greedy: false, rng: new Rng(4) });
    const s2 = policyAct(policy, state, { greedy: false, rng: new Rng(4) });
    expect(s1).toEqual(s2);
    expect(() => policyAct(policy, state, { greedy: false })).toThrow(/rng/);
  });
});

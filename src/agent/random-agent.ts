import type { Action } from '../core/action.ts';
import { makeAgentOutput } from '../core/agent-output.ts';
import { Rng } from '../core/rng.ts';
import type { AgentTask } from '../core/task.ts';
import type { Agent, AgentDecision, AgentInput } from './agent.ts';

const WORDS = ['test', 'hello', 'blue', '42', 'new york', 'apply', 'yes'];

/**
 * Random play, the floor every agent is compared with: clicks a random element (mostly), types a
 * random word into a random field, scrolls, or goes back; after `maxActions` it stops. Seeded per
 * task, so the same seed replays the same choices.
 */
export class RandomAgent implements Agent {
  readonly id = 'random';
  private rng: Rng;
  constructor(
    private readonly seed: number,
    private readonly maxActions = 15,
  ) {
    this.rng = new Rng(seed);
  }

  reset(task: AgentTask): void {
    this.rng = new Rng(`${this.seed}:${task.id}`);
  }

  async act({ observation, history }: AgentInput): Promise<AgentDecision> {
    const els = observation.elements;
    let action: Action;
    const r = this.rng.next();
    if (history.length >= this.maxActions)
      action = { type: 'done', text: this.rng.pick(WORDS), success: true };
    else if (!els.length || r < 0.08) action = { type: 'scroll', down: this.rng.bool(0.7), pages: 1 };
    else if (r < 0.12) action = { type: 'go_back' };
    else {
      const e = this.rng.pick(els);
      const editable = e.tag === 'input' || e.tag === 'textarea';
      action =
        editable && this.rng.bool(0.6)
          ? { type: 'input', index: e.index, text: this.rng.pick(WORDS), clear: true }
          : { type: 'click', index: e.index };
    }
    return { output: makeAgentOutput({ next_goal: 'random action' }, [action]), actions: [action] };
  }
}

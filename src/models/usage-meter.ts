import type { Usage } from '../core/index.ts';

/** A zero usage record (core Usage shape). */
export function emptyUsage(): Usage {
  return { promptTokens: 0, completionTokens: 0, costUsd: 0, calls: 0 };
}

/** Sums two usage records. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    costUsd: a.costUsd + b.costUsd,
    calls: a.calls + b.calls,
  };
}

/**
 * Sums tokens and cost per role (teacher, judge, reflector, ...). One meter is shared by every
 * model of a run so the run can report what each role spent; trajectories carry their own sums.
 */
export class UsageMeter {
  private readonly perRole = new Map<string, Usage>();

  /** Adds one call's usage under `role`. */
  add(role: string, usage: Usage): void {
    this.perRole.set(role, addUsage(this.perRole.get(role) ?? emptyUsage(), usage));
  }

  /** Usage of one role (zeros when it made no calls). */
  get(role: string): Usage {
    return { ...(this.perRole.get(role) ?? emptyUsage()) };
  }

  /** Usage summed over every role. */
  total(): Usage {
    let t = emptyUsage();
    for (const u of this.perRole.values()) t = addUsage(t, u);
    return t;
  }

  /** Per-role usage as a plain object, roles sorted by name. */
  byRole(): Record<string, Usage> {
    const out: Record<string, Usage> = {};
    for (const role of [...this.perRole.keys()].sort()) out[role] = this.get(role);
    return out;
  }

  toJSON(): { byRole: Record<string, Usage>; total: Usage } {
    return { byRole: this.byRole(), total: this.total() };
  }
}

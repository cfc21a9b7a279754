/** Trajectory listing: filters as SQL, and summaries read from indexed columns. */

/** Filters for listing trajectories; every given field must match. */
export interface TrajectoryFilter {
  taskId?: string;
  agentId?: string;
  /**
   * true: verdict.success is true. false: verdict.success is false. Trajectories without a
   * verdict (judge error, unjudged) match neither.
   */
  success?: boolean;
  /** The trajectory carries this tag. */
  tag?: string;
  round?: number;
}

/** The cheap per-trajectory columns, read without parsing trajectory bodies. */
export interface TrajectorySummary {
  id: string;
  taskId: string;
  site: string;
  agentId: string;
  round: number;
  success: boolean | null;
  score: number | null;
  steps: number;
  tags: string[];
  /** How many reflection notes were injected into the attempt. */
  notes: number;
}

/** The trajectories row columns a summary is read from. */
export interface SummaryRow {
  id: string;
  task_id: string;
  site: string;
  agent_id: string;
  round: number;
  success: number | null;
  score: number | null;
  steps: number;
  tags: string;
  notes: number;
}

export function summaryFromRow(r: SummaryRow): TrajectorySummary {
  return {
    id: r.id,
    taskId: r.task_id,
    site: r.site,
    agentId: r.agent_id,
    round: r.round,
    success: r.success === null ? null : r.success === 1,
    score: r.score,
    steps: r.steps,
    tags: JSON.parse(r.tags) as string[],
    notes: r.notes,
  };
}

/** The WHERE clause (on alias `t`) and named parameters for a filter. */
export function trajectoryWhere(f: TrajectoryFilter): { where: string; params: Record<string, unknown> } {
  const clauses: string[] = [];
  const params: Record<string, unknown> = {};
  if (f.taskId !== undefined) {
    clauses.push('t.task_id = @taskId');
    params.taskId = f.taskId;
  }
  if (f.agentId !== undefined) {
    clauses.push('t.agent_id = @agentId');
    params.agentId = f.agentId;
  }
  if (f.success !== undefined) {
    clauses.push('t.success = @success');
    params.success = f.success ? 1 : 0;
  }
  if (f.round !== undefined) {
    clauses.push('t.round = @round');
    params.round = f.round;
  }
  if (f.tag !== undefined) {
    clauses.push('EXISTS (SELECT 1 FROM json_each(t.tags) WHERE json_each.value = @tag)');
    params.tag = f.tag;
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

import { type AgentTask, agentView } from '../core/task.ts';
import type { Trajectory } from '../core/trajectory.ts';
import type { PolicyState } from './types.ts';

/**
 * The policy's view of step `i` of a recorded trajectory: the task as agents see it, the
 * observation without reflection notes (they are for the teacher's retry only, so no training
 * record carries them), and the earlier actions with the pages they were taken on. Pass `task`
 * when building many steps of one trajectory, to compute the agent view once.
 */
export function trajectoryStepState(
  t: Trajectory,
  i: number,
  task: AgentTask = agentView(t.task),
): PolicyState {
  const obs = t.steps[i].observation;
  const earlier = t.steps.slice(0, i);
  return {
    task,
    observation: obs.notes.length ? { ...obs, notes: [] } : obs,
    history: earlier.map((s) => s.action),
    historyUrls: earlier.map((s) => s.observation.url),
  };
}

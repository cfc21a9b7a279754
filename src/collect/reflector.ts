import type { Reflection } from '../core/reflection.ts';
import type { Trajectory } from '../core/trajectory.ts';

/** What a reflector sees: the failed attempt (with the verifier's verdict) and earlier notes. */
export interface ReflectInput {
  trajectory: Trajectory;
  /** Reflections already written for this task, oldest first. */
  previous: Reflection[];
}

/**
 * Distills a failed attempt into a short note on what went wrong and what recovery looks like.
 * The note is injected into every observation of the next attempt, then stripped from training data.
 */
export interface Reflector {
  readonly id: string;
  reflect(input: ReflectInput): Promise<Reflection>;
}

import { describe, expect, it } from 'vitest';
import { InputError, ModelApiError } from '../core/errors.ts';
import { TrainerEnvError } from '../models/trainer-python.ts';
import { exitFor } from './main.ts';
import { BackendRequestError } from './serve-model/backend.ts';

describe('how the CLI ends on an error', () => {
  it('exits 2 for what the user must fix, with the message alone', () => {
    expect(exitFor(new InputError('bad', { field: '--x' }))).toEqual({
      status: 2,
      text: 'rmsweb: field --x: bad',
    });
    // A missing or broken trainer venv is the user's to set up: a usage error, not a crash.
    expect(
      exitFor(new TrainerEnvError('the venv is missing; create it with: bash trainer/setup.sh')),
    ).toEqual({
      status: 2,
      text: 'rmsweb: the venv is missing; create it with: bash trainer/setup.sh',
    });
  });

  it('exits 1 for a runtime failure rmsweb raised on purpose, with the message alone', () => {
    expect(exitFor(new ModelApiError('endpoint down', { isRetryable: true }))).toEqual({
      status: 1,
      text: 'rmsweb: endpoint down',
    });
    const e = new BackendRequestError('the prompt is 9000 tokens', 'context_length_exceeded');
    expect(e.code).toBe('context_length_exceeded');
    expect(exitFor(e)).toEqual({ status: 1, text: 'rmsweb: the prompt is 9000 tokens' });
  });

  it('exits 1 with the stack for an error nobody raised on purpose', () => {
    const r = exitFor(new TypeError('x is undefined'));
    expect(r.status).toBe(1);
    expect(r.text).toMatch(/^rmsweb: TypeError: x is undefined\n\s+at /);
  });
});

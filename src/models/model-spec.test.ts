import { describe, expect, it } from 'vitest';
import { InputError } from '../core/index.ts';
import { formatModelSpec, parseModelSpec, resolveEndpoint } from './model-spec.ts';

describe('parseModelSpec', () => {
  it('parses a bare model and a model with a URL', () => {
    expect(parseModelSpec('openai:gpt-4o-mini')).toEqual({ provider: 'openai', model: 'gpt-4o-mini' });
    expect(parseModelSpec('openai:Qwen/Qwen2.5-VL-7B@http://10.0.0.2:8000/v1')).toEqual({
      provider: 'openai',
      model: 'Qwen/Qwen2.5-VL-7B',
      baseURL: 'http://10.0.0.2:8000/v1',
    });
  });
  it('keeps an @ that is not followed by a URL in the model name', () => {
    expect(parseModelSpec('openai:claude@2024').model).toBe('claude@2024');
    expect(parseModelSpec('openai:m@v2@https://h/v1')).toEqual({
      provider: 'openai',
      model: 'm@v2',
      baseURL: 'https://h/v1',
    });
  });
  it('rejects bad specs with InputError', () => {
    expect(() => parseModelSpec('gpt-4o')).toThrow(InputError);
    expect(() => parseModelSpec('anthropic:claude')).toThrow(/unknown model provider/);
    expect(() => parseModelSpec('openai:')).toThrow(InputError);
    expect(() => parseModelSpec('openai:@http://x/v1')).toThrow(/names no model/);
  });
  it('round-trips through formatModelSpec', () => {
    const s = 'openai:gpt-4o@http://localhost:1234/v1';
    expect(formatModelSpec(parseModelSpec(s))).toBe(s);
  });
});

describe('resolveEndpoint', () => {
  const env = {
    OPENAI_BASE_URL: 'http://generic/v1',
    OPENAI_API_KEY: 'generic-key-1',
    RMSWEB_JUDGE_BASE_URL: 'http://judge/v1/',
    RMSWEB_JUDGE_API_KEY: 'judge-key-1',
  };
  it('prefers the role variables over the generic ones', () => {
    expect(resolveEndpoint({ role: 'judge', env })).toEqual({
      baseURL: 'http://judge/v1',
      apiKey: 'judge-key-1',
      baseURLSource: 'role-env',
    });
    expect(resolveEndpoint({ role: 'teacher', env })).toEqual({
      baseURL: 'http://generic/v1',
      apiKey: 'generic-key-1',
      baseURLSource: 'env',
    });
  });
  it('prefers options, then the spec URL, over the environment', () => {
    expect(resolveEndpoint({ role: 'judge', env, baseURL: 'http://opt/v1', apiKey: 'opt-key' }).baseURL).toBe(
      'http://opt/v1',
    );
    expect(
      resolveEndpoint({ role: 'judge', env, spec: parseModelSpec('openai:m@http://spec/v1') }).baseURLSource,
    ).toBe('spec');
    expect(resolveEndpoint({ env: {} })).toEqual({
      baseURL: 'https://api.openai.com/v1',
      apiKey: null,
      baseURLSource: 'default',
    });
  });
});

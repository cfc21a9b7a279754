export {
  CriticalReplayAgent,
  type CriticalStore,
  loadCriticalStore,
  type ReplayableState,
  siblingRuns,
} from './critical.ts';
export { EpisodeRun, RemoteAgent } from './episode-run.ts';
export * from './protocol.ts';
export { EnvRuntime, type EnvRuntimeOptions, type WorldHandle } from './runtime.ts';
export { EnvServer, type EnvServerOptions } from './server.ts';
export { classifyInfraError, DEFAULT_ENV_MAX_STEPS, EnvSession, type SessionOptions } from './session.ts';
export { acceptUpgrade, connectWs, WsConnection } from './websocket.ts';

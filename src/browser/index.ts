export { ActionFailure, EXECUTORS, runAction } from './actions.ts';
export { type Allowlist, compileAllowlist } from './allowlist.ts';
export { BrowserEnv, type ResetOptions, type ResetTask, type StepTiming } from './browser-env.ts';
export { isClosedError, withDeadline } from './deadline.ts';
export { extractElements, type PageExtraction } from './extract.ts';
export { BrowserHost, chromiumPath } from './launch.ts';
export {
  BrowserEnvOptions,
  type BrowserEnvOptionsInput,
  DEFAULT_CHROMIUM_ARGS,
  type LaunchOptions,
  parseEnvOptions,
} from './options.ts';
export { captureScreenshot, jpegSize, type Screenshot } from './screenshot.ts';
export { formatElement, type PageView, serializeView } from './serialize.ts';
export { TabSet } from './tabs.ts';
export { normalizeUrl } from './url.ts';

export {
  type CriticalEntry,
  type CriticalSet,
  CriticalSource,
  discoverCriticalFiles,
} from './critical-source.ts';
export { type CurvePoint, type CurveSet, CurveSource, groupMetrics } from './curve-source.ts';
export { actedElement, describeElement, type OverlayBox, overlayBox } from './overlay.ts';
export { RunView, type TaskRow, type ViewerSources } from './run-view.ts';
export { startViewer, type ViewerOptions, type ViewerServer } from './server.ts';
export { loadTables } from './table-source.ts';

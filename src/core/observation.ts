import { z } from 'zod';
import { ActionErrorKind } from './action-error.ts';

export const OBSERVATION_SCHEMA_VERSION = 1;

export const BBox = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });
export type BBox = z.infer<typeof BBox>;

/**
 * One interactive element, as the agent sees it. `index` is valid for this observation only;
 * `nodeKey` is stable across re-indexing of the same page (same DOM path and identity attributes).
 */
export const Element = z.object({
  index: z.number().int().nonnegative(),
  tag: z.string(),
  role: z.string().default(''),
  /** Accessible name. */
  name: z.string().default(''),
  /** Trimmed visible text. */
  text: z.string().default(''),
  /** Key attributes: type, name, placeholder, aria-label, value, href (path), checked, selected, ... */
  attributes: z.record(z.string(), z.string()).default({}),
  /** Bounding box in page (document) coordinates, CSS pixels. */
  bbox: BBox,
  nodeKey: z.string(),
  /** False when the element lies outside the viewport: flagged, not dropped. */
  inViewport: z.boolean().default(true),
  /** Frame path ('' for the main frame) and whether it sits in a shadow root. */
  frame: z.string().default(''),
  inShadow: z.boolean().default(false),
  /** Nesting depth among indexed elements, used to indent the text view. */
  depth: z.number().int().nonnegative().default(0),
  /** Index of the nearest indexed ancestor (e.g. the link around a clickable span), or null. */
  parentIndex: z.number().int().nonnegative().nullable().default(null),
});
export type Element = z.infer<typeof Element>;

/**
 * A visible block of non-interactive text (heading, paragraph, table cell, price label), in
 * document order. Agents read answers to information tasks from these.
 */
export const TextBlock = z.object({
  text: z.string(),
  tag: z.string().default(''),
  bbox: BBox.optional(),
  inViewport: z.boolean().default(true),
});
export type TextBlock = z.infer<typeof TextBlock>;

export const Tab = z.object({ id: z.string(), url: z.string(), title: z.string(), active: z.boolean() });
export type Tab = z.infer<typeof Tab>;

/**
 * A reference to a screenshot stored by content hash. `data` (base64) is transient: it travels
 * from the browser to the agent in memory and is stripped before anything is persisted.
 */
export const ScreenshotRef = z.object({
  hash: z.string(),
  mime: z.literal('image/jpeg').default('image/jpeg'),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  data: z.string().optional(),
});
export type ScreenshotRef = z.infer<typeof ScreenshotRef>;

export const ScrollInfo = z.object({
  x: z.number().default(0),
  y: z.number().default(0),
  viewportWidth: z.number().default(0),
  viewportHeight: z.number().default(0),
  pageHeight: z.number().default(0),
  pagesAbove: z.number().default(0),
  pagesBelow: z.number().default(0),
});
export type ScrollInfo = z.infer<typeof ScrollInfo>;

/** What the agent observes at one step: the page, plus agent-side fields. */
export const Observation = z.object({
  schemaVersion: z.literal(OBSERVATION_SCHEMA_VERSION).default(OBSERVATION_SCHEMA_VERSION),
  url: z.string(),
  title: z.string().default(''),
  tabs: z.array(Tab).default([]),
  elements: z.array(Element).default([]),
  /** Visible non-interactive text blocks in document order (also interleaved in `text`). */
  texts: z.array(TextBlock).default([]),
  /** Browser Use style text view: one `[index]<tag attrs>text` line per element. */
  text: z.string().default(''),
  screenshot: ScreenshotRef.nullable().default(null),
  scroll: ScrollInfo.default(ScrollInfo.parse({})),
  lastActionError: z.string().nullable().default(null),
  /** The kind of `lastActionError` (absent in records written before kinds existed). */
  lastActionErrorKind: ActionErrorKind.optional(),
  // Agent-side fields.
  stepIndex: z.number().int().nonnegative().default(0),
  memory: z.string().default(''),
  progress: z.string().default(''),
  /** Reflection notes injected for this attempt. Never exported to training data. */
  notes: z.array(z.string()).default([]),
});
export type Observation = z.infer<typeof Observation>;
export type ObservationInput = z.input<typeof Observation>;

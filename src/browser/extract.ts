import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { Element, ScrollInfo, TextBlock } from '../core/index.ts';
import { withDeadline } from './deadline.ts';

// The in-page script: ES modules (so lint and editors see their imports) joined into one function
// body. Order matters: each file only uses what the files before it define.
const PARTS = ['state.js', 'dom.js', 'geometry.js', 'rows.js', 'extract.js', 'actions.js'];
let script: string | undefined;

/** Turns a module into a plain script fragment: imports dropped (the names share one scope), exports unmarked. */
function unmodule(src: string): string {
  return src.replace(/^import\s[\s\S]*?from\s+'[^']+';?\s*$/gm, '').replace(/^export\s+/gm, '');
}

/**
 * The in-page script (page/*.js), read as text. It is evaluated as a string, never passed as a
 * function, so the TypeScript loader cannot inject helpers that do not exist in the page. Running
 * it installs `window.__rmsweb` once per document.
 */
export function pageScript(): string {
  script ??= `(() => {\nif (window.__rmsweb) return true;\n${PARTS.map((f) =>
    unmodule(readFileSync(new URL(`./page/${f}`, import.meta.url), 'utf8')),
  ).join('\n')}\nreturn true;\n})();`;
  return script;
}

/** What one extraction pass returns: the page's identity, scroll state, elements and text blocks. */
export interface PageExtraction {
  url: string;
  title: string;
  scroll: ScrollInfo;
  elements: Element[];
  /** Visible text blocks outside indexed clickables, in document order. */
  texts: TextBlock[];
  /** Per text block: how many elements precede it in document order, and its indentation depth. */
  layout: TextPlacement[];
  /** Elements dropped by the `maxElements` cap. */
  truncated: number;
  /** False when the document was still being parsed (`readyState` `loading`) at extraction time. */
  ready: boolean;
}

// The compact rows page/extract.js returns (see there): keys once per page, not once per element.
type ElementRow = [
  number,
  string,
  string,
  string | null,
  string,
  Record<string, string>,
  number,
  number,
  number,
  number,
  string,
  0 | 1,
  string,
  0 | 1,
  number,
  number,
];
type TextRow = [string, string, number, number, number, number, 0 | 1, number, number];
interface RawExtraction {
  url: string;
  title: string;
  scroll: ScrollInfo;
  elements: ElementRow[];
  texts: TextRow[];
  truncated: number;
  ready: boolean;
}

/** Turns the page's compact rows into core Elements and TextBlocks. */
function expand(raw: RawExtraction): PageExtraction {
  const elements: Element[] = raw.elements.map((r) => ({
    index: r[0],
    tag: r[1],
    role: r[2],
    name: r[3] ?? r[4],
    text: r[4],
    attributes: r[5],
    bbox: { x: r[6], y: r[7], width: r[8], height: r[9] },
    nodeKey: r[10],
    inViewport: r[11] === 1,
    frame: r[12],
    inShadow: r[13] === 1,
    depth: r[14],
    parentIndex: r[15] === 0 ? null : r[15],
  }));
  const texts: TextBlock[] = raw.texts.map((r) => ({
    text: r[0],
    tag: r[1],
    bbox: { x: r[2], y: r[3], width: r[4], height: r[5] },
    inViewport: r[6] === 1,
  }));
  const layout = raw.texts.map((r) => ({ after: r[7], depth: r[8] }));
  return {
    url: raw.url,
    title: raw.title,
    scroll: raw.scroll,
    elements,
    texts,
    layout,
    truncated: raw.truncated,
    ready: raw.ready,
  };
}

/** Where a text block sits in the text view. */
export interface TextPlacement {
  after: number;
  depth: number;
}

/** Limits of one extraction. */
export interface ExtractOptions {
  maxElements: number;
  maxTextLength: number;
}

/**
 * Calls `expr` (an expression over `window.__rmsweb`) in the page's main frame. When the script is
 * not installed (a new document) it is installed first if `install`, else `missing` is returned:
 * actions must not re-index a page the agent has not seen.
 */
export async function callPage<T>(page: Page, expr: string, install: boolean, missing: T): Promise<T> {
  const got = await page.evaluate(`window.__rmsweb ? (${expr}) : undefined`);
  if (got !== undefined) return got as T;
  if (!install) return missing;
  return (await page.evaluate(`${pageScript()}\n(${expr})`)) as T;
}

/**
 * Indexes every visible interactive element of the page (top document, same-origin iframes, open
 * shadow roots) in one in-page call, and stores them in the page for actions to address by index.
 */
export async function extractElements(
  page: Page,
  opts: ExtractOptions,
  timeoutMs: number,
): Promise<PageExtraction> {
  const arg = JSON.stringify({ maxElements: opts.maxElements, maxText: opts.maxTextLength });
  const json = await withDeadline(
    `extracting the interactive elements of ${page.url()}`,
    timeoutMs,
    callPage<string>(page, `window.__rmsweb.extract(${arg})`, true, ''),
  );
  return expand(JSON.parse(json) as RawExtraction);
}

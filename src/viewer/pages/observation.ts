import type { Element, Observation } from '../../core/index.ts';
import { esc } from '../../core/text.ts';
import { describeElement, overlayBox } from '../overlay.ts';
import type { RunView } from '../run-view.ts';

/** An element to outline on a screenshot; `cls` picks the colour (`success` green, default red). */
export interface Highlight {
  el: Element;
  cls?: string;
  /** Caption text under the screenshot. */
  label: string;
  /** Short tag drawn on the box itself. */
  tag: string;
}

/** The observation's text view with the highlighted elements' lines marked. */
export function textView(obs: Observation, highlights: Highlight[]): string {
  const marked = new Set(highlights.map((h) => h.el.index));
  const lines = (obs.text || '(empty text view)').split('\n').map((line) => {
    const m = /^\s*\[(\d+)\]/.exec(line);
    return m && marked.has(Number(m[1])) ? `<span class="acted">${esc(line)}</span>` : esc(line);
  });
  return `<pre class="textview">${lines.join('\n')}</pre>`;
}

/**
 * The screenshot of an observation with boxes drawn over the highlighted elements; when the
 * screenshot was not taken (screenshots disabled) or its image is missing, the text view instead.
 */
export function screenshotFigure(view: RunView, obs: Observation, highlights: Highlight[]): string {
  const shot = obs.screenshot;
  const file = shot ? view.imageFile(shot.hash) : null;
  const captions = highlights.map(
    (h) => `<p class="caption">${esc(h.label)}: <span class="mono">${esc(describeElement(h.el))}</span></p>`,
  );
  if (!shot || !file) {
    const why = !shot
      ? 'No screenshot was taken at this step (screenshots disabled).'
      : `Screenshot ${shot.hash.slice(0, 12)}… is not in the image store.`;
    return `<div class="no-shot"><p class="muted">${esc(why)} Showing the text view the model read.</p>${captions.join('')}${textView(obs, highlights)}</div>`;
  }
  const boxes: string[] = [];
  for (const h of highlights) {
    const b = overlayBox(obs, h.el);
    if (!b) {
      captions.push(
        `<p class="caption muted">${esc(h.label)} lies outside the screenshot (element box y=${Math.round(h.el.bbox.y)}, scrolled to y=${Math.round(obs.scroll.y)}).</p>`,
      );
      continue;
    }
    boxes.push(
      `<div class="box ${esc(h.cls ?? '')}${b.clipped ? ' clipped' : ''}" data-index="${h.el.index}" data-label="${esc(h.tag)}" title="${esc(`${h.label}: ${describeElement(h.el)}`)}" style="left:${b.left}%;top:${b.top}%;width:${b.width}%;height:${b.height}%"></div>`,
    );
  }
  return `<div class="shot"><img src="/img/${esc(shot.hash)}" width="${shot.width}" height="${shot.height}" alt="${esc(`screenshot of ${obs.url}`)}">${boxes.join('')}</div>${captions.join('')}<details><summary>Text view</summary>${textView(obs, highlights)}</details>`;
}

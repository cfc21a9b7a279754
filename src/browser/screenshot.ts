import type { CDPSession, Page } from 'playwright-core';
import { type ScreenshotRef, sha256 } from '../core/index.ts';
import { withDeadline } from './deadline.ts';

/** A screenshot with its base64 data attached (transient: the store strips `data`). */
export type Screenshot = ScreenshotRef & { data: string };

/** Width and height from a JPEG's SOF marker; null when the bytes are not a JPEG. */
export function jpegSize(buf: Uint8Array): { width: number; height: number } | null {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return null;
  let i = 2;
  while (i + 9 < buf.length) {
    if (buf[i] !== 0xff) {
      i++;
      continue;
    }
    const marker = buf[i + 1];
    const len = (buf[i + 2] << 8) | buf[i + 3];
    // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (buf[i + 5] << 8) | buf[i + 6], width: (buf[i + 7] << 8) | buf[i + 8] };
    }
    i += 2 + len;
  }
  return null;
}

/**
 * Takes a JPEG of the viewport. With a protocol session on the page (Chromium) it is one
 * `Page.captureScreenshot` call: the same bytes as `page.screenshot`, without the four round trips
 * Playwright adds around it (three of them into the page's main thread, where they would queue
 * behind an element extraction running at the same time). Otherwise `page.screenshot`, with
 * `caret: 'initial'`: the text caret as the user sees it (a focused field is useful context).
 * With `maxWidth` below the viewport width the image is downscaled (sharp, loaded only then).
 */
export async function captureScreenshot(
  page: Page,
  opts: { quality: number; maxWidth?: number },
  timeoutMs: number,
  cdp?: CDPSession | null,
): Promise<Screenshot> {
  const viaPlaywright = () =>
    page.screenshot({ type: 'jpeg', quality: opts.quality, caret: 'initial', timeout: timeoutMs });
  let buf: Uint8Array = await withDeadline(
    'taking a JPEG screenshot',
    timeoutMs,
    cdp
      ? cdp.send('Page.captureScreenshot', { format: 'jpeg', quality: opts.quality }).then(
          (r) => Buffer.from(r.data, 'base64'),
          // Between two documents (a navigation committing) the protocol answers "Not attached
          // to an active page"; Playwright's call waits that out.
          () => viaPlaywright(),
        )
      : viaPlaywright(),
  );
  let size = jpegSize(buf);
  if (opts.maxWidth && size && size.width > opts.maxWidth) {
    const { default: sharp } = await import('sharp');
    const resized = await sharp(buf)
      .resize({ width: opts.maxWidth })
      .jpeg({ quality: opts.quality })
      .toBuffer();
    buf = resized;
    size = jpegSize(resized);
  }
  const data = Buffer.from(buf).toString('base64');
  return {
    hash: sha256(buf),
    mime: 'image/jpeg',
    width: size?.width ?? 1,
    height: size?.height ?? 1,
    data,
  };
}

import { z } from 'zod';
import { describeZodIssues, InputError } from '../core/index.ts';

/** Screenshot settings of an environment. */
export const ScreenshotOptions = z.object({
  /** Take a JPEG screenshot with every observation. */
  enabled: z.boolean().default(true),
  /** JPEG quality, 1-100. */
  quality: z.number().int().min(1).max(100).default(60),
  /** Downscale screenshots wider than this (CSS pixels); unset keeps the viewport width. */
  maxWidth: z.number().int().min(100).optional(),
});

/**
 * Options of one BrowserEnv. Every field has a documented default, so `{}` is a valid config.
 * Validated with zod at `host.newEnv(...)`; a bad value raises an InputError naming the field.
 */
export const BrowserEnvOptions = z.object({
  /** Viewport size in CSS pixels (device scale factor 1). */
  viewport: z
    .object({
      width: z.number().int().min(200).max(4096).default(1280),
      height: z.number().int().min(200).max(4096).default(800),
    })
    .default({ width: 1280, height: 800 }),
  screenshot: ScreenshotOptions.default({ enabled: true, quality: 60 }),
  /** Deadline of one action (click, input, ...) and of each in-page call, in ms. */
  actionTimeoutMs: z.number().int().positive().default(5_000),
  /** Deadline of a page load (navigate, go_back, a click that navigates), in ms. */
  navigationTimeoutMs: z.number().int().positive().default(15_000),
  /** How long to watch for a navigation or a new tab after an action, in ms. */
  settleMs: z.number().int().nonnegative().default(100),
  /**
   * Allowed navigation targets: origins or URL prefixes (`http://127.0.0.1:8080`, `https://a.com/app/`),
   * or bare hosts (`example.com`, `*.example.com`, `localhost:3000`). Unset allows everything;
   * navigation elsewhere is blocked and reported as an action error.
   */
  allowlist: z.array(z.string().min(1)).optional(),
  /** Cap on indexed elements per observation; past it, those farthest from the viewport are dropped. */
  maxElements: z.number().int().positive().default(2_000),
  /** Cap on an element's text and name, in characters. */
  maxTextLength: z.number().int().min(10).default(120),
  /** Locale and time zone of the context: fixed so pages render the same on every machine. */
  locale: z.string().default('en-US'),
  timezoneId: z.string().default('UTC'),
  userAgent: z.string().optional(),
  ignoreHTTPSErrors: z.boolean().default(false),
});
export type BrowserEnvOptions = z.infer<typeof BrowserEnvOptions>;
export type BrowserEnvOptionsInput = z.input<typeof BrowserEnvOptions>;

/** Validates env options; errors name the field (`field screenshot.quality: ...`). */
export function parseEnvOptions(input: unknown): BrowserEnvOptions {
  const r = BrowserEnvOptions.safeParse(input ?? {});
  if (!r.success) {
    throw new InputError(`invalid browser options: ${describeZodIssues(r.error.issues)}`, {
      field: r.error.issues[0]?.path.join('.') ?? '',
    });
  }
  return r.data;
}

/** Launch settings of the local Chromium. */
export interface LaunchOptions {
  /** Chromium binary; defaults to $RMSWEB_CHROMIUM, then /usr/bin/chromium. */
  executablePath?: string;
  headless?: boolean;
  /** Extra command-line switches, appended to the defaults. */
  args?: string[];
  /** Deadline of the launch, in ms. */
  timeoutMs?: number;
}

/** Switches that keep a headless Chromium quiet, offline-safe and stable in containers. */
export const DEFAULT_CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { RmswebError } from '../core/index.ts';
import { BrowserEnv } from './browser-env.ts';
import { firstLine, withDeadline } from './deadline.ts';
import {
  type BrowserEnvOptionsInput,
  DEFAULT_CHROMIUM_ARGS,
  type LaunchOptions,
  parseEnvOptions,
} from './options.ts';

/** The Chromium binary: $RMSWEB_CHROMIUM, else Debian's /usr/bin/chromium. */
export function chromiumPath(): string {
  return process.env.RMSWEB_CHROMIUM || '/usr/bin/chromium';
}

/**
 * One browser process (local, or remote over Playwright's protocol) shared by many environments.
 * Each `newEnv()` gets its own browser context, so several episodes run concurrently in one
 * browser without sharing cookies, storage or tabs.
 */
export class BrowserHost {
  private readonly envs = new Set<BrowserEnv>();

  private constructor(
    /** The Playwright browser. */
    readonly browser: Browser,
    /** Where it runs: the executable path, or the endpoint connected to. */
    readonly where: string,
  ) {}

  /** Launches the local headless Chromium (see `chromiumPath`). */
  static async launch(opts: LaunchOptions = {}): Promise<BrowserHost> {
    const executablePath = opts.executablePath ?? chromiumPath();
    if (!existsSync(executablePath)) {
      throw new RmswebError(
        `Chromium not found at ${executablePath}; install Debian's chromium package or set RMSWEB_CHROMIUM to a Chromium binary`,
        { code: 'BROWSER_LAUNCH', details: { executablePath } },
      );
    }
    const timeoutMs = opts.timeoutMs ?? 30_000;
    try {
      const browser = await withDeadline(
        `launching Chromium (${executablePath})`,
        timeoutMs,
        chromium.launch({
          executablePath,
          headless: opts.headless ?? true,
          args: [...DEFAULT_CHROMIUM_ARGS, ...(opts.args ?? [])],
          timeout: timeoutMs,
          // The CLI owns Ctrl-C and SIGTERM (finish in-flight episodes, then exit); Playwright's own
          // handlers would close the browser under them. Chromium still exits with us: its pipe closes.
          handleSIGINT: false,
          handleSIGTERM: false,
        }),
      );
      return new BrowserHost(browser, executablePath);
    } catch (e) {
      if (RmswebError.isInstance(e)) throw e;
      throw new RmswebError(`could not launch Chromium (${executablePath}): ${firstLine(e)}`, {
        code: 'BROWSER_LAUNCH',
        details: { executablePath },
        cause: e,
      });
    }
  }

  /**
   * Connects to a remote browser: a Playwright browser server (`ws://host:port/...`, from
   * `launchServer` or `playwright run-server`), or, for a `/devtools/browser/` endpoint or an
   * http(s) URL, a Chromium over the Chrome DevTools Protocol.
   */
  static async connect(wsEndpoint: string, opts: { timeoutMs?: number } = {}): Promise<BrowserHost> {
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const cdp = /^https?:/i.test(wsEndpoint) || wsEndpoint.includes('/devtools/browser/');
    try {
      const browser = await withDeadline(
        `connecting to the browser at ${wsEndpoint}`,
        timeoutMs,
        cdp
          ? chromium.connectOverCDP(wsEndpoint, { timeout: timeoutMs })
          : chromium.connect(wsEndpoint, { timeout: timeoutMs }),
      );
      return new BrowserHost(browser, wsEndpoint);
    } catch (e) {
      if (RmswebError.isInstance(e)) throw e;
      throw new RmswebError(`could not connect to the browser at ${wsEndpoint}: ${firstLine(e)}`, {
        code: 'BROWSER_CONNECT',
        isRetryable: true,
        details: { wsEndpoint },
        cause: e,
      });
    }
  }

  /** Launches locally, or connects when `wsEndpoint` is given (the CLI's `--browser-ws`). */
  static async open(wsEndpoint?: string, opts: LaunchOptions = {}): Promise<BrowserHost> {
    return wsEndpoint
      ? BrowserHost.connect(wsEndpoint, { timeoutMs: opts.timeoutMs })
      : BrowserHost.launch(opts);
  }

  /** A new environment with its own context; options are validated (InputError names the field). */
  async newEnv(opts: BrowserEnvOptionsInput = {}): Promise<BrowserEnv> {
    const config = parseEnvOptions(opts);
    const env = new BrowserEnv(this.browser, config, (e) => this.envs.delete(e));
    this.envs.add(env);
    return env;
  }

  /** Whether the browser is still reachable. */
  get isConnected(): boolean {
    return this.browser.isConnected();
  }

  /** Closes every environment, then the browser (or the connection to a remote one). */
  async close(): Promise<void> {
    await Promise.all([...this.envs].map((e) => e.close().catch(() => {})));
    await this.browser.close().catch(() => {});
  }
}

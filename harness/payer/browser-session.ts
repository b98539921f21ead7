/**
 * The browser payer's sessions: one hosted screen in its own browser context (what its main frame did, the redirect
 * caught before it is followed, a payment never sent twice), and the turns that bound the pages driven at once.
 */
import type { BrowserContext, CDPSession, Page, Request, Route } from 'playwright-core';
import { currentRecord, type TestRecord } from '../record/test-record.ts';
import { nextInLine } from '../api/queue-order.ts';
import { noteStep, pathOf } from '../record/transcript.ts';
import { redactBodyText } from '../record/redact.ts';
import { bare } from './form.ts';
import type { PaymentOutcome, Submission } from './types.ts';

export type Stop = (url: string) => boolean;

const ARRIVED = '<!doctype html><title>outcome received</title><p>outcome received by the conformance suite</p>';
/** What a page may ask for that no payment needs. */
const SKIPPED = new Set(['image', 'media', 'font']);
/**
 * Open screens kept to be paid later (opened-screen, opened-page): each is closed when its test ends, and beyond this
 * many the oldest is. A test may hold one for the whole of a time limit (a quick-pay's 30 s in real time) while the
 * others open theirs: at 16, an idle run (faster, so more screens opened meanwhile) closed a held one that a loaded
 * run kept, a verdict changed by load.
 */
export const MAX_OPEN = 48;
/** Cleaned pages kept for the next screens. */
export const MAX_IDLE = 8;
/**
 * Pages driven at once (a navigation, filling and submitting a form): more only starve each other of CPU on a small
 * machine under load, and a page that gets none times out. Waiting for a turn is not the test's own time.
 */
export const MAX_DRIVEN = 2;
/** Turns beyond MAX_DRIVEN kept for work before a deadline (Turns). */
export const RESERVED_FOR_DEADLINES = 1;

/**
 * A counting semaphore serving the highest priority first, then first come: a run lasts as long as its longest chain,
 * so the test with most still to do is driven first (priorityNow, as at the request cap). Work before a deadline
 * (`urgent`) may also take one of `reserve` turns kept for it: a page held by an ordinary payment never makes a QR
 * or a screen's minutes run out while it waits. A taker gets its release (once; the same turn goes back).
 */
export class Turns {
  #free: number;
  #reserve: number;
  readonly #queue: { priority: number; seq: number; urgent: boolean; grant: (release: () => void) => void }[] = [];
  #seq = 0;
  constructor(n: number, reserve = 0) {
    this.#free = n;
    this.#reserve = reserve;
  }
  take(priority = 0, urgent = false): Promise<() => void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(this.#release(false));
    }
    if (urgent && this.#reserve > 0) {
      this.#reserve--;
      return Promise.resolve(this.#release(true));
    }
    return new Promise((grant) => this.#queue.push({ priority, seq: this.#seq++, urgent, grant }));
  }
  #release(reserved: boolean): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#give(reserved);
    };
  }
  /** A reserved turn goes to urgent work only; an ordinary one to whoever is next in line. */
  #give(reserved: boolean): void {
    const waiting = reserved ? this.#queue.filter((w) => w.urgent) : this.#queue;
    if (waiting.length === 0) {
      if (reserved) this.#reserve++;
      else this.#free++;
      return;
    }
    const next = waiting[nextInLine(waiting)]!;
    this.#queue.splice(this.#queue.indexOf(next), 1);
    next.grant(this.#release(reserved));
  }
}

/** One screen in its own browser context: what its main frame did, and the outcome once it is known. */
export class Session {
  stop: Stop | undefined;
  outcome: (PaymentOutcome & { kind: 'redirect' }) | undefined;
  error: string | undefined;
  status = 0;
  readonly #sent = new Set<string>();
  /** Submissions the target asked the browser to send on (a 307/308): the browser's, not a re-send. */
  readonly #forwarded = new Set<string>();
  /** Every site the page talked to: their storage is cleared before the page serves another screen. */
  readonly #origins = new Set<string>();
  #settle: () => void = () => {};
  /** The inputs the card number and cvv were typed into, in whichever frame: blanked before a screenshot. */
  readonly secretTargets = new Set<string>();
  /** The last payment this page sent (a form POST, a script's fetch), for resubmitScreen. */
  submission: Submission | undefined;
  /** The test this screen is for: its transcript gets the pages loaded and the redirect caught (events run outside it). */
  #scope: TestRecord | undefined;
  readonly #noted = new WeakSet<Request>();
  /** The page's DevTools session, opened once: storage is cleared through it. */
  #cdp: CDPSession | undefined;
  /** Set when the outcome's navigation is answered with ARRIVED: whether that page loaded. */
  #arrivedShown: Promise<boolean> | undefined;

  /** A main-frame navigation as a step of the test's transcript: the page, what was posted (redacted), the answer. */
  #note(req: Request, status: number, headers: Record<string, string>): void {
    this.#noted.add(req);
    const posted = req.postData();
    const location = headers['location'];
    const detail = [
      `> ${req.method()} ${req.url()}`,
      ...(posted ? [redactBodyText(posted, req.headers()['content-type'] ?? '')] : []),
      `< ${status} ${headers['content-type'] ?? ''}`.trimEnd(),
      ...(location ? [`< location: ${location}`] : []),
    ].join('\n');
    noteStep({ kind: 'page', title: `browser ${req.method()} ${pathOf(req.url())} → ${status}`, detail }, this.#scope);
  }

  /** timeoutMs: the target's answer to a navigation sent here; stepMs: a step of the browser's own. */
  constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    readonly timeoutMs: number,
    /** Set again by the payer before each use: its bound scales with what a step costs now (browser.ts #step). */
    public stepMs: number,
  ) {
    page.on('response', (r) => {
      const req = r.request();
      if (!req.isNavigationRequest() || r.frame() !== page.mainFrame()) return;
      this.status = r.status();
      // A navigation this payer sent itself (#fetchOnce) is noted there, with the target's own answer.
      if (!this.#noted.has(req)) this.#note(req, r.status(), r.headers());
    });
    // A redirect the browser followed by itself is not routed: seen here, before it is sent.
    page.on('request', (r) => {
      if (/^https?:/.test(r.url())) this.#origins.add(new URL(r.url()).origin);
      if (r.isNavigationRequest() && r.frame() === page.mainFrame() && this.stop?.(r.url())) this.#arrive(r.url());
    });
  }

  static async open(context: BrowserContext, timeoutMs: number, stepMs: number): Promise<Session> {
    const page = await context.newPage();
    const session = new Session(context, page, timeoutMs, stepMs);
    // A route answered after its context closed throws: nothing to do then.
    await context.route('**/*', (route) => session.onRoute(route).catch(() => undefined));
    return session;
  }

  /** Ready for another screen: what the last one did forgotten. */
  reset(stop: Stop | undefined): void {
    this.#scope = currentRecord();
    this.stop = stop;
    this.outcome = undefined;
    this.error = undefined;
    this.status = 0;
    this.#sent.clear();
    this.#forwarded.clear();
    this.#arrivedShown = undefined;
    this.#settle = () => {};
  }

  /**
   * Ready for a new customer: no cookies or storage left (a fresh context costs a renderer start, about half a
   * second); false when the page cannot be cleaned, so it is closed instead.
   */
  async clean(): Promise<boolean> {
    try {
      // The page answered with the outcome caught is ours (no script runs on it): it stays. Any other page leaves
      // its site first, so nothing it runs writes again what is cleared.
      if (!((await this.#arrivedShown) ?? false)) await this.#blank();
      this.#cdp ??= await this.context.newCDPSession(this.page);
      for (const origin of this.#origins) await this.#cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
      this.#origins.clear();
      await this.context.clearCookies();
      this.reset(undefined);
      this.secretTargets.clear();
      return true;
    } catch {
      return false;
    }
  }

  /** The navigation that reached the outcome answered here, with a page of ours (no script runs on it). */
  #answerArrived(route: Route): Promise<void> {
    this.#arrivedShown ??= this.page.waitForEvent('domcontentloaded', { timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    return route.fulfill({ status: 200, contentType: 'text/html', body: ARRIVED });
  }

  /**
   * The page on about:blank. The outcome is known when its navigation is caught, before the page shows what it was
   * answered: that navigation may still be committing and interrupt this one, which is then sent again.
   */
  async #blank(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.page.goto('about:blank', { timeout: this.stepMs });
        return;
      } catch (err) {
        if (attempt >= 3 || !/interrupted by another navigation/.test((err as Error).message)) throw err;
        await this.page.waitForLoadState('domcontentloaded', { timeout: this.stepMs }).catch(() => undefined);
      }
    }
  }

  /** The payer presses the next step of a checkout: a submission of its own, not the page sending one again. */
  nextSubmission(): void {
    this.#sent.clear();
    this.#forwarded.clear();
  }

  /** Resolves when the outcome or an error is known (the page may load meanwhile). */
  settled(): Promise<void> {
    return new Promise((resolve) => {
      this.#settle = resolve;
      if (this.outcome || this.error) resolve();
    });
  }

  #arrive(url: string): void {
    if (!this.outcome) noteStep({ kind: 'redirect', title: `redirect caught by the browser payer (not followed): ${url}` }, this.#scope);
    this.outcome ??= { kind: 'redirect', location: url, params: Object.fromEntries(new URL(url).searchParams) };
    this.#settle();
  }

  #fail(message: string): void {
    if (!this.error) noteStep({ kind: 'page', title: `browser payer: ${message}` }, this.#scope);
    this.error ??= message;
    this.#settle();
  }

  async onRoute(route: Route): Promise<void> {
    const req = route.request();
    // Nothing the payment does not need: images, media and fonts are not fetched (a page's layout and scripts are).
    if (SKIPPED.has(req.resourceType())) return route.abort('blockedbyclient');
    // A page's own top-level navigation (a popup's too: where a control leads is caught there as well).
    let top = false;
    try {
      top = req.frame().parentFrame() === null;
    } catch {
      top = false; // a service worker's request
    }
    if (req.isNavigationRequest() && !top) return this.#fetchFrame(route);
    if (!req.isNavigationRequest()) {
      // A script's submission (fetch): kept for a replay the test may ask for, as a form's is.
      if (this.stop && req.method() !== 'GET' && ['fetch', 'xhr'].includes(req.resourceType()) && req.frame() === this.page.mainFrame())
        await this.#keep(req);
      return route.continue();
    }
    const url = req.url();
    if (this.stop?.(url)) {
      this.#noted.add(req); // answered here, not by the target: the redirect caught is the step
      this.#arrive(url);
      return this.#answerArrived(route);
    }
    if (req.method() !== 'GET') {
      await this.#keep(req);
      const key = `${req.method()} ${bare(url)}`;
      if (this.#sent.has(key) && !this.#forwarded.delete(key)) {
        this.#fail(`the page sent the payment to ${bare(url)} a second time; the browser payer blocked it (a payment is never re-sent)`);
        return route.abort('blockedbyclient');
      }
      this.#sent.add(key);
    }
    if (!this.stop) return route.continue();
    return this.#fetchOnce(route, url, req.method());
  }

  /** What the page sends, as it sends it: kept (in memory) for a replay the test may ask for (resubmitScreen). */
  async #keep(req: Request): Promise<void> {
    const headers = await req.allHeaders().catch(() => req.headers());
    const kept = Object.fromEntries(Object.entries(headers).filter(([k]) => ['content-type', 'cookie'].includes(k.toLowerCase())));
    this.submission = { method: req.method(), url: req.url(), ...(req.postData() ? { body: req.postData()! } : {}), headers: kept };
  }

  /**
   * A frame's document fetched here and handed to the frame: a frame of another origin whose request is let through
   * under a page this session answered (fetchOnce) gets an error page in Chromium instead of its document.
   */
  async #fetchFrame(route: Route): Promise<void> {
    let res: Awaited<ReturnType<Route['fetch']>>;
    try {
      // A frame's document loads as the page does: on the browser's step bound (a loaded machine is slow here).
      res = await route.fetch({ timeout: this.stepMs });
    } catch {
      return route.abort('failed');
    }
    return route.fulfill({ response: res });
  }

  /** Sends the navigation itself (redirects not followed) to see where a redirect leads before the browser goes. */
  async #fetchOnce(route: Route, url: string, method: string): Promise<void> {
    let res: Awaited<ReturnType<Route['fetch']>>;
    try {
      res = await route.fetch({ maxRedirects: 0, timeout: this.timeoutMs });
    } catch (err) {
      this.#fail(`${method} ${bare(url)} got no answer: ${(err as Error).message.split('\n')[0]}`);
      return route.abort('failed');
    }
    this.#note(route.request(), res.status(), res.headers());
    const location = res.headers()['location'];
    if (res.status() >= 300 && res.status() <= 399 && location !== undefined) {
      const next = new URL(location, url).href;
      if (this.stop?.(next)) {
        this.#arrive(next);
        return this.#answerArrived(route);
      }
      if ((res.status() === 307 || res.status() === 308) && method !== 'GET') {
        // The browser sends it on, as it does for any customer: the target asked for it, the payer sends nothing again.
        noteStep(
          { kind: 'page', title: `the target answered ${res.status()} to the submission: the browser sends it on to ${bare(next)}` },
          this.#scope,
        );
        this.#forwarded.add(`${method} ${bare(next)}`);
      }
    }
    return route.fulfill({ response: res });
  }

  /** Whether the page and its browser are still there. */
  usable(): boolean {
    return !this.page.isClosed() && (this.context.browser()?.isConnected() ?? true);
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
  }
}

/**
 * The system's Chromium (Debian package `chromium`, or CHROMIUM_PATH) driven through playwright-core, which
 * downloads no browser. One browser per payer (a `Chromium`, made by createPayer), launched on first use with a fresh
 * profile; playwright closes it when the process exits. Also the evidence of a page the payer got stuck on: URL,
 * screenshot and text, with the card number and cvv blanked in the page and its frames before the picture and
 * redacted from the text.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
// Types only here: config reads the constants below without loading playwright.
import type { Browser, Page } from 'playwright-core';
import { redactUrl, secrets } from '../record/redact.ts';
import { cssOf } from './fields.ts';

/** Flags that work on CI machines and containers (no GPU, no sandboxing, nothing fetched in the background). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** One line saying how to get a browser, for config errors and skips. */
export function installHint(path: string): string {
  return (
    `no Chromium at ${path}: install it with \`apt-get install -y chromium\` (Debian/Ubuntu), or set ` +
    `CHROMIUM_PATH to the chromium executable`
  );
}

/** Whether there is a Chromium at `path` (CHROMIUM_PATH as the configuration or chromiumPathSetting reads it). */
export function chromiumAvailable(path: string): boolean {
  return existsSync(path);
}

/**
 * A payer's Chromium at `path`: its browser, launched once on first use (again after it went away), and the
 * screenshots of the pages it got stuck on, numbered. Payers may share one (tests); a run's payer has its own.
 */
export class Chromium {
  #browser: Promise<Browser> | undefined;
  /** Screenshots taken, for their file names. */
  #shots = 0;

  constructor(readonly path: string) {}

  /** The browser, launched once. */
  launch(): Promise<Browser> {
    if (!this.#browser) {
      const starting = import('playwright-core').then(({ chromium }) =>
        chromium.launch({ executablePath: this.path, args: CHROMIUM_ARGS, timeout: 30_000 }),
      );
      // A failed launch is not kept, nor a browser that went away (a crash): the next payment starts another.
      const forget = () => {
        if (this.#browser === starting) this.#browser = undefined;
      };
      starting.then((b) => b.on('disconnected', forget), forget);
      this.#browser = starting;
    }
    return this.#browser;
  }

  /** Closes the browser it launched (tests; a run's browser goes with its process). */
  async close(): Promise<void> {
    const browser = this.#browser;
    this.#browser = undefined;
    await (await browser?.catch(() => undefined))?.close();
  }

  /**
   * Evidence of the page the payer is on, for a failure message: its URL (redacted), a screenshot in
   * REPORT_DIR/screens/ and its text (redacted; also written beside the screenshot).
   */
  evidence(page: Page, options: EvidenceOptions): Promise<string> {
    return pageEvidence(page, options, () => this.#shots++);
  }
}

/** Card number and cvv inputs: the configured targets, those the payer typed them into, what autofill would recognise. */
function sensitiveSelectors(cardTarget: string, cvvTarget: string, typed: string[]): string[] {
  return [
    ...new Set([
      cssOf(cardTarget),
      cssOf(cvvTarget),
      ...typed,
      '[autocomplete=cc-number]',
      '[autocomplete=cc-csc]',
      'input[type=password]',
    ]),
  ];
}

/**
 * Empties the card and cvv inputs (and any input holding a card-like number), and masks a card number the page
 * echoes as text, in the page and every frame of it (of any origin), so a screenshot shows neither.
 */
export async function blankSecrets(
  page: Page,
  cardTarget: string,
  cvvTarget: string,
  cardNumbers: string[] = [],
  typed: string[] = [],
): Promise<void> {
  const selectors = sensitiveSelectors(cardTarget, cvvTarget, typed);
  await Promise.all(
    page.frames().map((frame) =>
      frame
        .evaluate(
          ([list, cards]) => {
            // One selector at a time: one the DOM API rejects spoils none of the others.
            for (const selector of list) {
              try {
                for (const el of document.querySelectorAll<HTMLInputElement>(selector)) el.value = '';
              } catch {
                // a selector only Playwright reads
              }
            }
            for (const el of document.querySelectorAll<HTMLInputElement>('input, textarea'))
              if (/^\d(?:[ -]?\d){12,18}$/.test(el.value.trim())) el.value = '';
            if (!document.body) return;
            const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
              let text = node.nodeValue ?? '';
              for (const card of cards) text = text.split(card).join('•'.repeat(card.length));
              text = text.replace(/\d(?:[ -]?\d){12,18}/g, (run) => '•'.repeat(run.length));
              if (text !== node.nodeValue) node.nodeValue = text;
            }
          },
          [selectors, cardNumbers] as const,
        )
        .catch(() => undefined),
    ),
  );
}

/** Where evidence goes, what it is called, and what it must not show (the card and cvv inputs, card numbers typed). */
export interface EvidenceOptions {
  reportDir: string;
  label: string;
  cardTarget: string;
  cvvTarget: string;
  cardNumbers?: string[];
  secretTargets?: string[];
}

/** Chromium.evidence; `shot` numbers the screenshot (after the time, so two in one millisecond differ). */
async function pageEvidence(page: Page, options: EvidenceOptions, shot: () => number): Promise<string> {
  const url = redactUrl(page.url());
  const parts = [`page ${url}`];
  try {
    await blankSecrets(page, options.cardTarget, options.cvvTarget, options.cardNumbers, options.secretTargets);
    const dir = join(options.reportDir, 'screens');
    mkdirSync(dir, { recursive: true });
    // Base 36: a 13-digit timestamp can pass Luhn and be masked as a card number in the message quoting the path.
    const base = join(
      dir,
      `${options.label.replace(/[^A-Za-z0-9-]+/g, '-').slice(0, 60)}-${Date.now().toString(36)}${shot().toString(36)}`,
    );
    await page.screenshot({ path: `${base}.png`, fullPage: true, timeout: 20_000 });
    const text = secrets.redactText(await page.innerText('body', { timeout: 5_000 }));
    writeFileSync(`${base}.txt`, `${url}\n\n${text}\n`);
    const shown = text.replace(/\s+/g, ' ').trim();
    parts.push(`screenshot ${base}.png`, `page text: "${shown.length > 300 ? `${shown.slice(0, 300)}…` : shown}"`);
  } catch (err) {
    parts.push(`no screenshot (${(err as Error).message.split('\n')[0]})`);
  }
  return parts.join('; ');
}

/**
 * The suite's own failures are never the target's, through `npm run conformance`: tests forced past
 * their own budget (TEST_TIMEOUT_MS=1) are ERROR — `<error>` in JUnit, never `<failure>`; an "Errors" section of
 * summary.md with the transcript; purple ERROR badges in index.html, no clause red — and fail the run, with
 * FAIL_ON=new against a baseline that has the same errors too. A sandbox fault in the same rule is a FAIL, red only
 * on the clause its failing check cites; both carry their transcript, folded until opened. Screenshots go to
 * reports/screenshots/ for a person to look at. Without Chromium the browser test skips with the reason.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../reporters/html.ts';
import { summarize, type ReportedTest } from '../../reporters/records.ts';
import { loadClauses } from '../../spec/clauses.ts';
import { ROOT, listing, runConformance, type ChildRun } from '../hostile/run.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const SHOTS = join(ROOT, 'reports', 'screenshots');
const work = mkdtempSync(join(tmpdir(), 'errors-e2e-'));

const conformance = (env: Record<string, string>, pattern: string) =>
  runConformance({ files: ['suites/validation.test.ts'], env, args: ['-t', pattern], timeoutMs: 120_000, wrapper: true });

let timedOut: ChildRun;
let againstItself: ChildRun;
let faulty: ChildRun;
let browser: Browser | undefined;

beforeAll(async () => {
  [timedOut, faulty] = await Promise.all([
    conformance({ TEST_TIMEOUT_MS: '1' }, '4.1-formapago'),
    conformance({ SANDBOX_FAULT: 'link-monto-zero-accepted' }, '4.1-monto-min'),
  ]);
  const baseline = join(work, 'errors.json');
  writeFileSync(baseline, timedOut.files['summary.json'] ?? '');
  againstItself = await conformance({ TEST_TIMEOUT_MS: '1', BASELINE: baseline, FAIL_ON: 'new' }, '4.1-formapago');
  if (existsSync(CHROMIUM)) browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

const errored = (run: ChildRun): ReportedTest[] => (run.summary?.tests ?? []).filter((t) => t.status === 'error');

describe('a test past its own budget', () => {
  it('is ERROR, not FAIL, in summary.json, with its transcript ending on what it was doing', () => {
    const errors = errored(timedOut);
    expect(errors.length, listing(timedOut)).toBeGreaterThan(0);
    expect(timedOut.summary?.totals.fail).toBe(0);
    for (const t of errors) {
      expect(t.error).toMatch(
        /^TestBudgetError: the suite's own time limit: .* past its budget of 0\.001 s \(TEST_TIMEOUT_MS; .* while .*; not judged/,
      );
      expect(t.transcript?.steps.at(-1)).toMatchObject({ kind: 'end', failing: true });
    }
    // No clause is coloured as the target's failure.
    expect(timedOut.summary?.clauses.filter((c) => c.status === 'FAIL')).toEqual([]);
    expect(timedOut.summary?.clauses.find((c) => c.id === '4.1-formapago-one-true')?.status).toBe('ERROR');
  });

  it('is an <error> in JUnit, never a <failure>, with the transcript in system-out', () => {
    const xml = timedOut.files['junit.xml'] ?? '';
    expect(xml).toMatch(/<error message="not judged \(the suite's own failure\): TestBudgetError: [^"]*" type="error">/);
    expect(xml).not.toContain('<failure');
    expect(xml).toContain('Transcript (');
    expect(xml).toContain('<<< failing step');
  });

  it('is listed under Errors in summary.md and on the console, and fails the run (exit 3) even with FAIL_ON=new', () => {
    const md = timedOut.files['summary.md'] ?? '';
    expect(md).toMatch(/## Errors \(ERROR: the suite's own failure — not judged, not the target's; the run fails\): \d+/);
    expect(md).not.toContain('## Failures');
    expect(md).toContain('<details><summary>Transcript:');
    expect(timedOut.output).toMatch(/\d+ ERROR: the suite's own failures/);
    // The suite's own error: exit 3, never the target's 1.
    expect(timedOut.code, listing(timedOut)).toBe(3);
    // The baseline has the same kind of errors: an ERROR still fails the run. Which tests outlive a 1 ms budget
    // differs from run to run on a loaded machine, so some errors may count as new; the run fails either way.
    expect(againstItself.output).toMatch(/FAIL_ON=new: \d+ new failures?, [1-9]\d* ERROR, .* → the run fails/);
    expect(againstItself.code, listing(againstItself)).toBe(3);
  });

  it('is a purple ERROR in index.html, beside a red FAIL of the clause its check cites; transcripts folded until opened', async (ctx) => {
    if (!browser) ctx.skip(`Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`);
    const fails = (faulty.summary?.tests ?? []).filter((t) => t.status === 'fail');
    expect(fails.length, listing(faulty)).toBeGreaterThan(0);
    // One report holding both: the failures of the faulty run and the errors of the timed-out one.
    const records = [...(faulty.summary?.tests ?? []).filter((t) => t.status !== 'skip'), ...errored(timedOut)];
    const summary = summarize(timedOut.summary!.run, records, loadClauses());
    writeFileSync(join(work, 'index.html'), renderHtml(summary));
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(pathToFileURL(join(work, 'index.html')).href);
    // The page at its top, the detail panel scrolled to the transcript.
    const shot = async (name: string) => {
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.locator('#detail details.transcript').evaluate((e) => e.scrollIntoView({ block: 'start' }));
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(SHOTS, name) });
    };
    expect(await page.locator('.tile[data-clause="4.1-monto-min"]').getAttribute('class')).toContain('st-fail');
    expect(await page.locator('.tile[data-clause="4.1-formapago-one-true"]').getAttribute('class')).toContain('st-error');
    expect(await page.locator('.tile[data-clause="4.1-formapago-one-true"]').evaluate((e) => getComputedStyle(e).backgroundColor)).toBe(
      'rgb(102, 57, 186)',
    );
    expect(await page.locator('#errors h2').innerText()).toMatch(/^Errors \(not judged: the suite's own failure; the run fails\): \d+$/);
    expect(await page.locator('#failures h2').innerText()).toMatch(/^Failures \(the target broke a clause\): \d+$/);
    await page.screenshot({ path: (mkdirSync(SHOTS, { recursive: true }), join(SHOTS, 'errors-report-1280.png')), fullPage: false });

    // An errored test: its error, then its transcript, folded.
    await page.locator('#errors .testbtn').first().click();
    await expect.poll(() => page.locator('#detail').innerText()).toContain("ERROR: the suite's own failure");
    const transcript = page.locator('#detail details.transcript');
    expect(await transcript.getAttribute('open')).toBeNull();
    await transcript.locator('summary').first().click();
    await expect.poll(() => page.locator('#detail .steps li.failing').count()).toBeGreaterThan(0);
    await shot('errors-report-error-1280.png');

    // A failed test: the failing step of its transcript is the check's exchange, marked and opened.
    await page.locator('#failures .testbtn').first().click();
    await expect.poll(() => page.locator('#detail').innerText()).toContain('Exchange (secrets redacted)');
    await page.locator('#detail details.transcript > summary').click();
    const failing = page.locator('#detail .steps li.failing');
    expect(await failing.innerText()).toMatch(/POST \/api\/EnlacePago .*→ 200[\s\S]*failing step/);
    expect(await failing.locator('details').getAttribute('open')).toBe('');
    expect(await failing.innerText()).toContain('authorization: Bearer [REDACTED]');
    await shot('errors-report-fail-1280.png');
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

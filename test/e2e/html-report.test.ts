/**
 * The reports as people and CI meet them, through `npm run conformance`: a clean run, the same suite with
 * a sandbox fault compared with it (BASELINE, FAIL_ON=new), and again against a baseline that already has the fault.
 * - The ratchet: FAIL_ON=new exits 1 when the fault is new, 0 when the baseline already has it; a bad BASELINE or
 *   FAIL_ON=new without one is a configuration error (exit 2) before anything runs.
 * - index.html opened from file:// in headless Chromium (playwright-core, the Debian chromium; CHROMIUM_PATH): the
 *   grid lists every clause, the fault's clause is red, a click on a failing test shows its evidence, the comparison
 *   lists exactly the new failures, filters work, the page asks the network for nothing, 390 px is usable, and hostile
 *   test text stays text. Screenshots go to reports/screenshots/ for a person to look at. Without Chromium these
 *   tests skip with the reason.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { renderHtml } from '../../reporters/html.ts';
import { summarize, type Summary } from '../../reporters/records.ts';
import { loadClauses } from '../../spec/clauses.ts';
import { ROOT, listing, runConformance, type ChildRun } from '../hostile/run.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const FAULT = 'link-monto-zero-accepted';
const FAULT_CLAUSE = '4.1-monto-min';
const SHOTS = join(ROOT, 'reports', 'screenshots');

const work = mkdtempSync(join(tmpdir(), 'html-report-'));
let browser: Browser | undefined;
let clean: ChildRun;
let faulty: ChildRun;
let again: ChildRun;
let url: string;

const conformance = (env: Record<string, string>) =>
  runConformance({ files: ['suites/validation.test.ts'], env, timeoutMs: 120_000, wrapper: true });

function needsChromium(ctx: TestContext): void {
  if (!browser) ctx.skip(`Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`);
}

/** A fresh page that records every request, console error and page error. */
async function open(target: string, width: number): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await browser!.newPage({ viewport: { width, height: 900 } });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(target);
  return { page, requests, errors };
}

beforeAll(async () => {
  clean = await conformance({});
  const cleanBaseline = join(work, 'clean.json');
  writeFileSync(cleanBaseline, clean.files['summary.json'] ?? '');
  faulty = await conformance({ SANDBOX_FAULT: FAULT, BASELINE: cleanBaseline, FAIL_ON: 'new' });
  const faultBaseline = join(work, 'fault.json');
  writeFileSync(faultBaseline, faulty.files['summary.json'] ?? '');
  again = await conformance({ SANDBOX_FAULT: FAULT, BASELINE: faultBaseline, FAIL_ON: 'new' });
  writeFileSync(join(work, 'index.html'), faulty.files['index.html'] ?? '');
  url = pathToFileURL(join(work, 'index.html')).href;
  mkdirSync(SHOTS, { recursive: true });
  // playwright gives the browser a fresh temporary profile (its own --user-data-dir).
  if (existsSync(CHROMIUM)) browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('FAIL_ON=new through npm run conformance', () => {
  it('exits 1 when the fault is new to the baseline, listing exactly the new failures', () => {
    expect(clean.code, listing(clean)).toBe(0);
    const failed = faulty
      .summary!.tests.filter((t) => t.status === 'fail')
      .map((t) => t.name)
      .sort();
    expect(failed.length, listing(faulty)).toBeGreaterThan(0);
    expect(faulty.summary?.comparison?.newFailures.map((t) => t.name).sort()).toEqual(failed);
    expect(faulty.output).toContain(
      `FAIL_ON=new: ${failed.length} new failure${failed.length === 1 ? '' : 's'}, 0 known failures of the baseline ` +
        `not counted → the run fails`,
    );
    expect(faulty.code).toBe(1);
  });

  it('exits 0 when the baseline already has the same failures', () => {
    expect(again.summary?.comparison).toMatchObject({ newFailures: [], fixed: [], added: [], removed: [] });
    expect(again.summary?.line.failed).toBe(faulty.summary?.line.failed);
    expect(again.output).toMatch(/FAIL_ON=new: 0 new failures, \d+ known failures? of the baseline not counted → the run passes/);
    expect(again.code).toBe(0);
  });

  it('refuses FAIL_ON=new without BASELINE, and a BASELINE that is not a report, before anything runs', async () => {
    const [noBaseline, missing] = await Promise.all([conformance({ FAIL_ON: 'new' }), conformance({ BASELINE: join(work, 'nowhere') })]);
    expect(noBaseline.code).toBe(2);
    expect(noBaseline.output).toContain('configuration error: FAIL_ON=new needs BASELINE');
    expect(missing.code).toBe(2);
    expect(missing.output).toMatch(
      /configuration error: BASELINE must be the REPORT_DIR of an earlier run, or its summary\.json \(got ".*nowhere", which does not exist\)/,
    );
    expect(missing.files).toEqual({});
  });
});

describe('index.html in a browser', () => {
  it("lists every clause of spec/clauses.yaml in the grid, the fault's clause red, and asks the network for nothing", async (ctx) => {
    needsChromium(ctx);
    expect(clean.summary?.line.failed, listing(clean)).toBe(0);
    const { page, requests, errors } = await open(url, 1280);
    const shown = await page.$$eval('#grid .tile', (tiles) => tiles.map((t) => t.getAttribute('data-clause')));
    expect(new Set(shown)).toEqual(new Set(loadClauses().map((c) => c.id)));
    const tile = page.locator(`.tile[data-clause="${FAULT_CLAUSE}"]`);
    expect(await tile.getAttribute('class')).toContain('st-fail');
    expect(await tile.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(207, 34, 46)');
    expect(await page.locator('.legend').innerText()).toContain('not covered');
    await page.screenshot({ path: join(SHOTS, 'html-report-1280.png') });
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    await page.close();
  });

  it("shows a failing test's evidence: expected, actual, the redacted exchange and a curl line to copy", async (ctx) => {
    needsChromium(ctx);
    const { page, requests, errors } = await open(url, 1280);
    await page.click(`.tile[data-clause="${FAULT_CLAUSE}"]`);
    const failing = page.locator('#detail .testbtn', { has: page.locator('.badge.st-fail') });
    // The page lists a test under a clause it cites or under the clause its failing check cites (a generated
    // value may meet the fault in another test too).
    const cites = (t: Summary['tests'][number]) => t.clauses.includes(FAULT_CLAUSE) || (t.failure?.clauses ?? []).includes(FAULT_CLAUSE);
    expect(await failing.count()).toBe(faulty.summary?.tests.filter((t) => t.status === 'fail' && cites(t)).length);
    await failing.filter({ hasText: 'monto 0' }).first().click();
    await expect.poll(() => page.locator('#detail').innerText()).toContain('Exchange (secrets redacted)');
    const detail = await page.locator('#detail').innerText();
    expect(detail).toContain('monto 0');
    expect(detail).toContain('(baseline: PASS)');
    expect(detail).toMatch(/Expected\s+rejected with a client error/);
    expect(detail).toMatch(/Actual\s+200/);
    expect(detail).toContain('authorization: Bearer [REDACTED]');
    expect(detail).toMatch(/Reproduce with curl\s+Copy\s+# export CLIENT_ID/);
    // The button says "Copied" for a moment; data-copied stays.
    await page.locator('#detail .copy').first().click();
    await expect.poll(() => page.locator('#detail .copy').first().getAttribute('data-copied')).toBe('true');
    expect(page.url()).toMatch(/#test=\d+&from=4\.1-monto-min$/);
    await page.screenshot({ path: join(SHOTS, 'html-report-evidence-1280.png') });
    // Back returns to the clause.
    await page.goBack();
    await expect.poll(() => page.locator('#detail h2').innerText()).toContain(FAULT_CLAUSE);
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    await page.close();
  });

  it('lists exactly the new failures of the comparison with the baseline', async (ctx) => {
    needsChromium(ctx);
    const failed = faulty
      .summary!.tests.filter((t) => t.status === 'fail')
      .map((t) => t.name)
      .sort();
    expect(failed.length, listing(faulty)).toBeGreaterThan(0);
    expect(faulty.summary?.comparison?.newFailures.map((t) => t.name).sort()).toEqual(failed);
    const { page } = await open(url, 1280);
    const listed = await page.$$eval('#cmp-newFailures .name', (names) => names.map((n) => n.textContent ?? '').sort());
    expect(listed).toEqual(failed);
    expect(await page.locator('#comparison').innerText()).toMatch(new RegExp(`${failed.length}\\s+new failures`));
    await page.close();
  });

  it('filters by status, section, endpoint and search', async (ctx) => {
    needsChromium(ctx);
    const { page } = await open(url, 1280);
    const tiles = () => page.$$eval('#grid .tile', (t) => t.map((x) => x.getAttribute('data-clause')));
    const all = (await tiles()).length;
    await page.fill('.filters input[type=search]', 'monto 0.009');
    expect(await tiles()).toEqual(expect.arrayContaining([FAULT_CLAUSE]));
    expect((await tiles()).length).toBeLessThan(all);
    await page.click('.filters .reset');
    await page.click('.filters .chip[data-status="FAIL"]');
    expect(await tiles()).not.toContain(FAULT_CLAUSE);
    await page.click('.filters .reset');
    await page.selectOption('.filters select[aria-label=Section]', 'sec:4.1');
    expect((await tiles()).every((id) => id?.startsWith('4.1-'))).toBe(true);
    await page.click('.filters .reset');
    await page.selectOption('.filters select[aria-label=Endpoint]', 'POST /EnlacePago');
    expect(await tiles()).toContain(FAULT_CLAUSE);
    expect((await tiles()).length).toBeLessThan(all);
    await page.close();
  });

  it('is not broken at 390 px: no sideways scrolling, and a click still shows the evidence', async (ctx) => {
    needsChromium(ctx);
    const { page, errors } = await open(url, 390);
    await page.screenshot({ path: join(SHOTS, 'html-report-390.png') });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.click(`.tile[data-clause="${FAULT_CLAUSE}"]`);
    await page
      .locator('#detail .testbtn', { has: page.locator('.badge.st-fail') })
      .first()
      .click();
    // The page renders from the address (#test=…), after the hashchange: wait for it as a person would.
    await expect.poll(() => page.locator('#detail').innerText()).toContain('Reproduce with curl');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(SHOTS, 'html-report-evidence-390.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows hostile test text as text: no markup, no script runs', async (ctx) => {
    needsChromium(ctx);
    const evil = '</script><img src=x onerror="window.pwned=1"><script>window.pwned=2</script>';
    const run = {
      specVersion: '1',
      suiteVersion: '1',
      startedAt: new Date().toISOString(),
      durationMs: 1,
      outcome: 'failed' as const,
      notes: [],
    };
    const summary: Summary = summarize(
      run,
      [
        {
          file: 'suites/x.test.ts',
          name: `[1-x] ${evil}`,
          status: 'fail',
          durationMs: 1,
          clauses: ['1-x'],
          endpoint: evil,
          error: evil,
          observations: [],
        },
      ],
      [
        { id: '1-x', section: '1', kind: 'rule', text: evil },
        // the tenant-isolation checks, outside the spec: a group of their own, not a section.
        { id: 'sec-tenant-isolation', section: '', kind: 'security', text: "a business never sees another business's links" },
      ],
    );
    const file = join(work, 'hostile.html');
    writeFileSync(file, renderHtml(summary));
    const { page, requests, errors } = await open(`${pathToFileURL(file).href}#test=0`, 1280);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('#detail h2').innerText()).toBe(`[1-x] ${evil}`);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('.group[data-group="kind:security"] h3').innerText()).toMatch(/^security \(not clauses of the spec\)/);
    expect(errors).toEqual([]);
    expect(requests).toHaveLength(1);
    await page.close();
  });
});

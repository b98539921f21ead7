/**
 * The reporters end to end: a tiny conformance suite (fixtures/) runs through them in child vitest processes —
 * whole, sharded, aborted, with a broken global setup, interrupted by SIGTERM, and with only another project — and
 * the files they write are checked (JUnit against the XSD, summary.md, summary.json, the printed lines, the merge).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { mergeReports } from '../../reporters/merge.ts';
import type { Summary, ReportedTest } from '../../reporters/records.ts';
import { vitestCli } from '../../harness/run/vitest-cli.ts';

const root = resolve(import.meta.dirname, '../..');
const fixtureConfig = 'test/reporters/fixtures/vitest.config.ts';
const xsd = readFileSync(join(root, 'reporters/schema/junit-10.xsd'), 'utf8');
const catalogueIds = [...readFileSync(join(root, 'test/reporters/fixtures/clauses.yaml'), 'utf8').matchAll(/^- id: (\S+)/gm)].map(
  (m) => m[1] ?? '',
);
const ABORT = 'STOPPED: the target business is in production mode (fixture)';
const NOT_PRINTED = ['password-in-url', 'run-info-field-not-to-print', 'capability-not-to-print'];
const LAST_LINE = /^(\d+) passed, (\d+) failed, (\d+) skipped$/;

const work = mkdtempSync(join(tmpdir(), 'reporters-test-'));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  dir: string;
}

/** Runs `command` in a child with a clean environment (none of this vitest's own variables) and REPORT_DIR=dir. */
function run(
  name: string,
  args: string[],
  env: Record<string, string> = {},
  whenStarted?: (stop: () => void) => Promise<void>,
): Promise<Result> {
  const dir = join(work, name);
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('VITEST') && !['CONFORMANCE_RUN_INFO', 'REPORT_DIR', 'FORCE_COLOR'].includes(k),
    ),
  );
  const child = spawn(process.execPath, args, { cwd: root, env: { ...clean, NO_COLOR: '1', REPORT_DIR: dir, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  void whenStarted?.(() => child.kill('SIGTERM'));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr, dir })));
}

const fixture = (name: string, args: string[] = [], env: Record<string, string> = {}, whenStarted?: (stop: () => void) => Promise<void>) =>
  run(name, [vitestCli, 'run', '--config', fixtureConfig, ...args], env, whenStarted);

/** Until `path` exists: no bound of its own (a loaded machine may take long to start vitest); the hook's timeout is the bound. */
async function untilExists(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((r) => setTimeout(r, 25));
}

const read = (r: Result, file: string) => readFileSync(join(r.dir, file), 'utf8');
const summaryOf = (r: Result) => JSON.parse(read(r, 'summary.json')) as Summary;
const lastLine = (r: Result) => r.stdout.trim().split('\n').at(-1) ?? '';
const byName = (s: Summary, fragment: string): ReportedTest => {
  const t = s.tests.find((x) => x.name.includes(fragment));
  if (!t) throw new Error(`no test named like ${fragment}`);
  return t;
};

/** Each <testcase> of a JUnit file: its attributes and its body. */
function testcases(xml: string): { classname: string; name: string; body: string }[] {
  return [...xml.matchAll(/<testcase ([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => ({
    classname: /classname="([^"]*)"/.exec(m[1] ?? '')?.[1] ?? '',
    name: /\bname="([^"]*)"/.exec(m[1] ?? '')?.[1] ?? '',
    body: m[2] ?? '',
  }));
}

async function expectValidJUnit(xml: string): Promise<void> {
  const result = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [xsd] });
  expect(result.errors.map((e) => e.rawMessage)).toEqual([]);
  expect(result.valid).toBe(true);
}

let full: Result,
  shard1: Result,
  shard2: Result,
  mergeCli: Result,
  aborted: Result,
  brokenSetup: Result,
  interrupted: Result,
  unitOnly: Result;
let compared: Result;
let errors: Result;
let duplicate: Result;

beforeAll(async () => {
  const marker = join(work, 'hang-started');
  const shards = Promise.all([
    fixture('shard1', ['--project', 'conformance', '--shard=1/2']),
    fixture('shard2', ['--project', 'conformance', '--shard=2/2']),
  ]);
  const merged = shards.then(([a, b]) =>
    run('cli', ['--import', 'tsx', 'scripts/merge-reports.ts', a.dir, b.dir, '--out', join(work, 'merged-cli')]),
  );
  const whole = fixture('full');
  // The same suite again, compared with the first run: nothing changed.
  const again = whole.then((f) => fixture('compared', ['--project', 'conformance'], { BASELINE: f.dir, FAIL_ON: 'new' }));
  [full, [shard1, shard2], mergeCli, aborted, brokenSetup, interrupted, unitOnly, compared, errors, duplicate] = await Promise.all([
    whole,
    shards,
    merged,
    fixture('aborted', ['--project', 'conformance'], { FIXTURE_ABORT: ABORT }),
    fixture('broken-setup', ['--project', 'conformance'], { FIXTURE_SETUP_THROWS: '1' }),
    fixture('interrupted', ['--project', 'conformance'], { FIXTURE_HANG: marker }, async (stop) => {
      await untilExists(marker);
      stop();
    }),
    fixture('unit-only', ['--project', 'unit']),
    again,
    fixture('errors', ['--project', 'conformance'], { FIXTURE_ERRORS: '1' }),
    fixture('duplicate', ['--project', 'conformance'], { FIXTURE_DUPLICATE: '1' }),
  ]);
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('junit.xml', () => {
  it('validates against the JUnit XSD the Jenkins world uses', async () => {
    await expectValidJUnit(read(full, 'junit.xml'));
  });

  it('has one testsuite per file and one testcase per test, each with its clause and endpoint properties', () => {
    const xml = read(full, 'junit.xml');
    expect([...xml.matchAll(/<testsuite name="([^"]*)"/g)].map((m) => m[1])).toEqual(['flows.fixture.ts', 'links.fixture.ts']);
    const cases = testcases(xml);
    expect(cases).toHaveLength(7);
    for (const c of cases) {
      expect(c.classname).toMatch(/^(flows|links)\.fixture$/);
      expect(c.body).toMatch(/<property name="clause" value="[^"]+"\/>/);
      expect(c.body).toMatch(/<property name="endpoint" value="[^"]+"\/>/);
    }
    const monto = cases.find((c) => c.name.includes('4.1-monto-min'));
    expect(monto?.body).toContain('<property name="clause" value="4.1-monto-min,4.1-not-in-catalogue"/>');
    expect(monto?.body).toContain('<property name="seed" value="1234"/>');
    expect(monto?.body).toContain('<property name="replay" value="FC_SEED=1234 npm run conformance -- -t 4.1-monto-min"/>');
  });

  it('gives a failure its expected vs actual, the exchange and the curl line; falls back to the error', () => {
    const cases = testcases(read(full, 'junit.xml'));
    const failure = cases.find((c) => c.name.includes('4.1-notification-target'))?.body ?? '';
    expect(failure).toMatch(
      /<failure message="rejected: expected the request is rejected[^"]*actual 200 with idEnlace 7" type="rejected">/,
    );
    expect(failure).toContain('expected: the request is rejected (a non-2xx status)');
    expect(failure).toContain('actual: 200 with idEnlace 7');
    expect(failure).toContain('exchange:\nPOST http://127.0.0.1:4010/api/EnlacePago');
    expect(failure).toContain("reproduce:\ncurl -sS -X POST 'http://127.0.0.1:4010/api/EnlacePago'");
    const plain = cases.find((c) => c.name.includes('3-failure-limit-deactivates'))?.body ?? '';
    expect(plain).toContain('<failure message="AssertionError: expected { usable: true } to deeply equal { usable: false }"');
  });

  it('gives a skip its reason, a WARN its observation, and an expected failure as skipped (not failed)', () => {
    const cases = testcases(read(full, 'junit.xml'));
    const body = (fragment: string) => cases.find((c) => c.name.includes(fragment))?.body ?? '';
    expect(body('4.2-activar-restores')).toContain('<skipped message="no account credentials: set ACCOUNT_USER and ACCOUNT_PASSWORD"/>');
    expect(body('4.1-formapago-one-true')).toContain('WARN [7-error-format-not-shown] the rejection body is text/plain');
    expect(body('4.1-formapago-one-true')).not.toMatch(/<failure|<skipped/);
    const xfail = body('7-cvv-111-declines');
    expect(xfail).toContain('<skipped message="expected failure: declined: expected esAprobada=false; actual esAprobada=true"/>');
    expect(xfail).not.toContain('<failure');
    const xpass = body('6.3-redirect-hash');
    expect(xpass).toContain('Expected failure passed');
    expect(xpass).not.toMatch(/<failure|<skipped/);
  });
});

describe('summary', () => {
  it('counts per status, per clause and per endpoint', () => {
    const s = summaryOf(full);
    expect(s.totals).toEqual({ pass: 1, fail: 2, warn: 1, skip: 1, expectedFailure: 1, expectedFailurePassed: 1, notRun: 0, error: 0 });
    expect(s.line).toEqual({ passed: 3, failed: 2, skipped: 2 });
    const status = Object.fromEntries(s.clauses.map((c) => [c.id, c.status]));
    expect(status).toEqual({
      '4.1-monto-min': 'PASS',
      '4.1-notification-target': 'FAIL',
      '4.1-formapago-one-true': 'PASS',
      '4.1-cantidad-maxima-cuotas-enum': 'not covered',
      '3-failure-limit-deactivates': 'FAIL',
      '4.2-activar-restores': 'SKIP',
      '6.3-redirect-hash': 'PASS',
      '7-cvv-111-declines': 'expected failure',
      '2.2-transaction-types': 'not covered',
      '7-error-format-not-shown': 'WARN',
      '9-versioning-not-shown': 'not covered',
    });
    expect(s.clauses.find((c) => c.id === '6.3-redirect-hash')?.counts.expectedFailurePassed).toBe(1);
    expect(s.endpoints).toEqual([
      { endpoint: 'POST /EnlacePago', counts: expect.objectContaining({ pass: 1, fail: 1, warn: 1 }) },
      { endpoint: 'PUT /EnlacePago/{id}/activar', counts: expect.objectContaining({ skip: 1 }) },
      { endpoint: 'flow', counts: expect.objectContaining({ fail: 1, expectedFailure: 1, expectedFailurePassed: 1 }) },
    ]);
    expect(s.uncovered).toEqual(['4.1-cantidad-maxima-cuotas-enum']);
    expect(s.uncoveredOther).toEqual(['2.2-transaction-types', '9-versioning-not-shown']);
    expect(s.unknownClauses).toEqual(['4.1-not-in-catalogue']);
  });

  it('carries the run metadata, and nothing else of CONFORMANCE_RUN_INFO', () => {
    const { run } = summaryOf(full);
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    expect(run).toMatchObject({
      targetUrl: 'http://127.0.0.1:4010/api',
      targetKind: 'embedded',
      mode: 'development',
      specVersion: '9.9.9-fixture',
      suiteVersion: version,
      fcSeed: 4242,
      outcome: 'failed',
      // What the global setup recovered from reaches the run's notes (text only); so do the tests' notes of the run
      // (the pages' fields discovered), once however many tests carry one.
      notes: [
        'the mode probe as CLIENT_ID got connection dropped to POST /EnlacePago; it probed again with a new link',
        'link screen fields discovered (4.1-url-enlace-leads-to-screen): numeroTarjeta → pan (autocomplete)',
      ],
    });
    // A note of the run is no observation: the test that carried it passes (WARN is the one observing fixture).
    expect(byName(summaryOf(full), 'monto 0.01 is accepted')).toMatchObject({ status: 'pass', observations: [] });
    expect(full.stdout).toContain('note: link screen fields discovered (4.1-url-enlace-leads-to-screen)');
    expect(read(full, 'summary.md')).toContain('> Note: link screen fields discovered');
    expect(Date.parse(run.startedAt)).not.toBeNaN();
    expect(run.durationMs).toBeGreaterThan(0);
    for (const r of [full, aborted, interrupted]) {
      const everything = r.stdout + r.stderr + read(r, 'junit.xml') + read(r, 'summary.md') + read(r, 'summary.json');
      for (const secret of NOT_PRINTED) expect(everything).not.toContain(secret);
    }
  });

  it('lists every clause of the catalogue in summary.md, and the uncovered ones', () => {
    const md = read(full, 'summary.md');
    for (const id of catalogueIds) expect(md).toMatch(new RegExp(`^\\| ${id.replaceAll('.', '\\.')} \\|`, 'm'));
    expect(md).toMatch(/^\| 4\.1-cantidad-maxima-cuotas-enum \| rule \| not covered \|/m);
    expect(md).toContain('## Uncovered clauses (rule, flow): 1\n\n- 4.1-cantidad-maxima-cuotas-enum (rule, section 4.1)');
    expect(md).toContain('| Spec document version | 9.9.9-fixture |');
    expect(md).toContain('**3 passed, 2 failed, 2 skipped**');
  });

  it('prints a few lines: totals, failures with their clause ids, uncovered count, report paths, then the CI line', () => {
    const lines = full.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'Conformance against http://127.0.0.1:4010/api (embedded, development): 1 PASS, 2 FAIL, 1 WARN, 1 SKIP, 1 ' +
        'expected failure, 1 expected failure passed',
    );
    expect(full.stdout).toContain('FAIL links.fixture.ts > [4.1-notification-target]');
    expect(full.stdout).toContain('FAIL flows.fixture.ts > [3-failure-limit-deactivates]');
    expect(full.stdout).toContain('Uncovered rule/flow clauses: 1 (4.1-cantidad-maxima-cuotas-enum)');
    expect(full.stdout).toMatch(/Reports: .*index\.html \(also summary\.md, summary\.json, junit\.xml/);
    expect(lastLine(full)).toBe('3 passed, 2 failed, 2 skipped');
    expect(full.code).toBe(1);
  });
});

describe("FAIL or ERROR (the suite's own failures are never the target's)", () => {
  it('a harness exception and a test past its timeout are ERROR; a failed check is FAIL', () => {
    const s = summaryOf(errors);
    expect(s.totals).toMatchObject({ fail: 1, error: 2 });
    expect(byName(s, 'a harness bug')).toMatchObject({
      status: 'error',
      error: "TypeError: Cannot read properties of undefined (reading 'idTransaccion')",
    });
    expect(byName(s, 'outlives its timeout')).toMatchObject({ status: 'error' });
    expect(byName(s, 'outlives its timeout').error).toMatch(/^Error: Test timed out in 200ms/);
    expect(byName(s, 'cantidadMaximaCuotas').status).toBe('fail');
    expect(errors.code).toBe(1);
  });

  it('a failed test fails only the clauses its failing check cites; an ERROR colours no clause FAIL', () => {
    const status = Object.fromEntries(summaryOf(errors).clauses.map((c) => [c.id, c.status]));
    expect(status['4.1-cantidad-maxima-cuotas-enum']).toBe('FAIL');
    // Cited by the failed test, but its failing check does not cite it: not judged by it.
    expect(status['9-versioning-not-shown']).toBe('not run');
    expect(status['2.2-transaction-types']).toBe('ERROR');
    expect(status['4.2-activar-restores']).toBe('ERROR');
    expect(Object.values(status).filter((x) => x === 'FAIL')).toHaveLength(1);
  });

  it('JUnit: <error> for an ERROR, <failure> for a FAIL, each with its transcript in system-out', async () => {
    const xml = read(errors, 'junit.xml');
    await expectValidJUnit(xml);
    const cases = testcases(xml);
    const body = (fragment: string) => cases.find((c) => c.name.includes(fragment))?.body ?? '';
    expect(body('a harness bug')).toMatch(/<error message="not judged \(the suite's own failure\): TypeError: Cannot read/);
    expect(body('a harness bug')).not.toContain('<failure');
    expect(body('outlives its timeout')).toMatch(/<error message="not judged \(the suite's own failure\): Error: Test timed out in 200ms/);
    const failed = body('cantidadMaximaCuotas');
    expect(failed).toMatch(/<failure message="rejected: expected rejected; actual 200" type="rejected">/);
    expect(failed).toContain('Transcript (3 steps, secrets redacted; >> marks the failing step):');
    expect(failed).toMatch(/>> +0\.01 s {2}api +POST \/api\/EnlacePago \(createPaymentLink\) → 200 in 5 ms {3}<<< failing step/);
    expect(failed).toContain('client_secret=[REDACTED:client-secret]');
  });

  it('summary.md and the console list failures and errors apart; the transcript is folded', () => {
    const md = read(errors, 'summary.md');
    expect(md).toContain('## Failures (FAIL: the target broke the clauses its failing check cites): 1');
    expect(md).toMatch(/## Errors \(ERROR: the suite's own failure — not judged, not the target's; the run fails\): 2/);
    expect(md).toContain('<details><summary>Transcript: 3 steps, in order');
    expect(md).toMatch(/^\| 9-versioning-not-shown \| observation \| not run \|/m);
    expect(errors.stdout).toContain("2 ERROR: the suite's own failures");
    expect(errors.stdout).toContain('ERROR errors.fixture.ts > [2.2-transaction-types] a harness bug: not judged');
    expect(lastLine(errors)).toBe('0 passed, 3 failed, 0 skipped');
  });
});

describe("a test's name is its identity", () => {
  it('two tests with one name fail the run, naming both files', () => {
    const s = summaryOf(duplicate);
    const clash = s.tests.find((t) => t.name === 'two tests with one name');
    expect(clash).toMatchObject({ status: 'error', file: '' });
    expect(clash?.error).toContain('"[4.1-monto-min] monto 0.01 is accepted" is declared in');
    expect(duplicate.code).not.toBe(0);
  });
});

describe('a run that stops', () => {
  it('reports what ran and marks the rest not run with the abort of CONFORMANCE_RUN_INFO', async () => {
    const s = summaryOf(aborted);
    const tests = s.tests.filter((t) => t.file !== '');
    expect(tests).toHaveLength(7);
    // fixtureTest checks the abort before the test body, as clauseTest does: all seven stop.
    expect(tests.every((t) => t.status === 'notRun' && t.reason === ABORT)).toBe(true);
    expect(s.tests.filter((t) => t.file === '')).toEqual([expect.objectContaining({ name: 'run stopped', status: 'error', error: ABORT })]);
    expect(s.run.abort).toBe(ABORT);
    expect(lastLine(aborted)).toBe('0 passed, 1 failed, 7 skipped');
    expect(read(aborted, 'summary.md')).toContain(`| Stopped | ${ABORT.replaceAll('|', '\\|')} |`);
    expect(read(aborted, 'summary.md')).toContain(`## Not run: 7\n\n**${ABORT}** (7)\n`);
    await expectValidJUnit(read(aborted, 'junit.xml'));
    expect(read(aborted, 'junit.xml')).toContain(`<skipped message="not run: ${ABORT}"/>`);
  });

  it('marks every file not run when the global setup fails before any test', async () => {
    const s = summaryOf(brokenSetup);
    expect(s.tests.filter((t) => t.file !== '').map((t) => [t.file, t.name, t.status])).toEqual([
      ['flows.fixture.ts', '(file not run)', 'notRun'],
      ['links.fixture.ts', '(file not run)', 'notRun'],
    ]);
    expect(s.tests[0]?.error).toBe('the run ended before it ran (vitest: run failed)');
    expect(s.clauses.every((c) => c.status === 'not covered')).toBe(true);
    expect(lastLine(brokenSetup)).toMatch(LAST_LINE);
    expect(brokenSetup.stderr).toContain('fixture: the global setup failed');
    await expectValidJUnit(read(brokenSetup, 'junit.xml'));
  });

  it('still writes both reports when interrupted by a signal, the running test marked not run', async () => {
    const s = summaryOf(interrupted);
    expect(byName(s, 'a slow check')).toMatchObject({ status: 'notRun', reason: 'the run was interrupted (SIGTERM)' });
    expect(s.run.outcome).toBe('interrupted');
    expect(s.line.passed + s.line.failed + s.line.skipped).toBe(s.tests.length);
    expect(lastLine(interrupted)).toMatch(LAST_LINE);
    expect(read(interrupted, 'summary.md')).toContain('the run was interrupted (SIGTERM)');
    await expectValidJUnit(read(interrupted, 'junit.xml'));
  });

  it('writes nothing when no test of the conformance project ran', () => {
    expect(unitOnly.code).toBe(0);
    expect(existsSync(unitOnly.dir)).toBe(false);
    expect(unitOnly.stdout).not.toContain('passed,');
  });
});

describe('sharding', () => {
  it('each shard reports its own part, marked as one shard', () => {
    const [a, b] = [summaryOf(shard1), summaryOf(shard2)];
    expect([...(a.run.shards ?? []), ...(b.run.shards ?? [])]).toEqual(['1/2', '2/2']);
    expect(new Set([...a.tests, ...b.tests].map((t) => t.file))).toEqual(new Set(['flows.fixture.ts', 'links.fixture.ts']));
    expect(a.tests.length + b.tests.length).toBe(7);
    expect(read(shard1, 'summary.md')).toContain('coverage is partial until the shards are merged');
  });

  it('merges into the same testcases, counts and coverage as the unsharded run', async () => {
    const out = join(work, 'merged');
    const merged = mergeReports([shard1.dir, shard2.dir], out);
    const whole = summaryOf(full);
    const strip = (s: Summary) => s.tests.map(({ durationMs: _, ...t }) => t);
    expect(strip(merged)).toEqual(strip(whole));
    expect(merged.totals).toEqual(whole.totals);
    expect(merged.clauses).toEqual(whole.clauses);
    expect(merged.run.shards).toEqual(['1/2', '2/2']);
    expect(merged.run.notes).toContain(
      'link screen fields discovered (4.1-url-enlace-leads-to-screen): numeroTarjeta → pan (autocomplete)',
    );
    const shape = (xml: string) => testcases(xml).map((c) => ({ ...c, body: c.body.replace(/ time="[^"]*"/g, '') }));
    const mergedXml = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(shape(mergedXml)).toEqual(shape(read(full, 'junit.xml')));
    await expectValidJUnit(mergedXml);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).not.toContain('coverage is partial');
  });

  it('npm run reports:merge prints the summary and exits 1 on failures', () => {
    expect(mergeCli.stderr).toBe('');
    expect(mergeCli.code).toBe(1);
    expect(lastLine(mergeCli)).toBe('3 passed, 2 failed, 2 skipped');
    expect(existsSync(join(work, 'merged-cli', 'junit.xml'))).toBe(true);
  });

  it('refuses a directory without summary.json, or one given twice, with what to do', () => {
    expect(() => mergeReports([shard1.dir, join(work, 'nowhere')], join(work, 'merged-bad'))).toThrow(
      /nowhere\/summary\.json not found: give the REPORT_DIR of each shard/,
    );
    expect(() => mergeReports([shard1.dir, shard1.dir], join(work, 'merged-bad'))).toThrow(/given twice/);
    expect(existsSync(join(work, 'merged-bad'))).toBe(false);
  });
});

describe('index.html and the comparison with a baseline', () => {
  it('is written with the other reports, self-contained, with every test in its data', () => {
    const html = read(full, 'index.html');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<(link|img|iframe)\b|\bsrc=|https?:\/\/(?!127\.0\.0\.1)/);
    const data = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html)?.[1] ?? '';
    expect((JSON.parse(data) as Summary).tests).toEqual(summaryOf(full).tests);
    expect(full.stdout).toMatch(/Reports: .*index\.html \(also summary\.md, summary\.json/);
  });

  it('compares a run with its baseline in summary.json, summary.md, the console and index.html', () => {
    const c = summaryOf(compared).comparison;
    expect(c).toMatchObject({ failOn: 'new', newFailures: [], fixed: [], newlySkipped: [], added: [], removed: [], clauseChanges: [] });
    expect(c?.baseline.source).toBe(full.dir);
    expect(c?.stillFailing.map((t) => t.name).sort()).toEqual(
      summaryOf(full)
        .tests.filter((t) => t.status === 'fail')
        .map((t) => t.name)
        .sort(),
    );
    const lines = compared.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^Compared with the baseline .*: 0 new failures, 0 fixed, 0 newly skipped, 0 tests added, 0 tests removed, 2 still failing \(known\), 0 clauses changed status$/,
    );
    expect(lines.at(-2)).toBe('FAIL_ON=new: 0 new failures, 2 known failures of the baseline not counted → the run passes');
    expect(lastLine(compared)).toBe('3 passed, 2 failed, 2 skipped');
    const md = read(compared, 'summary.md');
    expect(md.indexOf('## Compared with the baseline')).toBeLessThan(md.indexOf('## Totals'));
    expect(md).toContain('| new failures | 0 |');
    expect(read(compared, 'index.html')).toContain('"comparison":{"baseline"');
  });

  it('the shard merge writes index.html and compares with BASELINE too', () => {
    const out = join(work, 'merged-compared');
    const merged = mergeReports([shard1.dir, shard2.dir], out, { baseline: join(full.dir, 'summary.json'), failOn: 'new' });
    expect(merged.comparison?.newFailures).toEqual([]);
    expect(merged.comparison?.stillFailing).toHaveLength(2);
    expect(existsSync(join(out, 'index.html'))).toBe(true);
  });
});

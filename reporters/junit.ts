/**
 * JUnit XML for CI (`REPORT_DIR/junit.xml`): one testsuite per conformance test file, one testcase per test with
 * the properties `clause`, `endpoint` (and `seed`, `replay`, `expected` where present); a failure (FAIL: the target's)
 * carries the check's expected vs actual, the redacted exchange and the curl line; an ERROR (the suite's own failure:
 * not judged) is an `<error>`, never a `<failure>`; a skip carries its reason; observations (WARN) and the transcript
 * of a failed or errored test (every step it made, the failing one marked) go to system-out. An expected failure is
 * reported as skipped, as pytest reports xfail. Valid against
 * reporters/schema/junit-10.xsd (see reporters/schema/README.md).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Builder, TestCase } from 'junit-report-builder';
import { ConformanceReporter } from './collect.ts';
import { describeFailure, transcriptText, type Summary, type ReportedTest } from './records.ts';
import { isIn } from '../harness/record/verdict.ts';

// CommonJS whose typings declare a default export it does not have: require gives the builder itself.
const builder = createRequire(import.meta.url)('junit-report-builder') as Builder;

// Default export: vitest loads a reporter given by path (`reporters: ['./reporters/junit.ts']`) from it.
export default class JUnitReporter extends ConformanceReporter {
  protected write(summary: Summary, dir: string): void {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'junit.xml'), renderJUnit(summary));
  }
}

export function renderJUnit(summary: Summary): string {
  const report = builder.newBuilder().name('conformance');
  const byFile = new Map<string, ReportedTest[]>();
  for (const t of summary.tests) byFile.set(t.file, [...(byFile.get(t.file) ?? []), t]);
  for (const [file, tests] of byFile) {
    const seconds = tests.reduce((sum, t) => sum + t.durationMs, 0) / 1000;
    const suite = report
      .testSuite()
      .name(file || '(run)')
      .timestamp(summary.run.startedAt)
      .time(seconds);
    for (const t of tests) addTestCase(suite.testCase(), t);
  }
  return report.build();
}

function addTestCase(tc: TestCase, t: ReportedTest): void {
  tc.className(t.file ? t.file.replace(/\.[^./]+$/, '') : '(run)')
    .name(t.name)
    .time(t.durationMs / 1000)
    .property('clause', t.clauses.join(','))
    .property('endpoint', t.endpoint);
  if (t.seed !== undefined) tc.property('seed', String(t.seed));
  if (t.replay) tc.property('replay', t.replay);

  const out = t.observations.map((o) => `WARN [${o.clause}] ${o.message}`);
  switch (t.status) {
    case 'fail': {
      const { message, text } = describeFailure(t);
      tc.failure(message, t.failure?.check ?? 'error').stacktrace(cdata(text));
      break;
    }
    case 'error':
      tc.error(describeFailure(t).message, 'error', cdata(t.error ?? ''));
      break;
    case 'skip':
      if (t.skipKind) tc.property('skipKind', t.skipKind);
      skipped(tc, t.reason ?? '');
      break;
    case 'notRun':
      skipped(tc, `not run: ${t.reason ?? ''}`);
      break;
    case 'expectedFailure': {
      const { message, text } = describeFailure(t);
      tc.property('expected', 'failed');
      skipped(tc, `expected failure: ${message}`);
      out.push('Expected failure (listed in EXPECTED_FAILURES_FILE); it failed as expected:', text);
      break;
    }
    case 'expectedFailurePassed':
      tc.property('expected', 'passed');
      out.push('Expected failure passed: this test is listed in EXPECTED_FAILURES_FILE but passed; remove it from the list.');
      break;
  }
  if (t.transcript && isIn('failing', t.status)) {
    out.push(`Transcript (${t.transcript.steps.length} steps, secrets redacted; >> marks the failing step):`, transcriptText(t.transcript));
  }
  if (out.length > 0) tc.standardOutput(cdata(out.join('\n')));
}

/** junit-report-builder 5 writes `<skipped/>` without a message; the reason goes in the attribute the schema has. */
function skipped(tc: TestCase, message: string): void {
  tc.skipped();
  const build = tc.build.bind(tc);
  tc.build = (parent) => {
    const element = build(parent);
    const child = element.children.find((c) => (c as { name?: string }).name === 'skipped') as typeof element | undefined;
    child?.att('message', message);
    return element;
  };
}

// xmlbuilder escapes only the first `]]>` of a CDATA section.
function cdata(text: string): string {
  return text.replaceAll(']]>', ']] >');
}

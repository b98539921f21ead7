/**
 * What a conformance run found, as the Stryker judge (judge.ts) compares it with the clean baseline: FAILs, ERRORs,
 * observations and hangs (requests the target held without answering), each masked of what differs from run to run.
 */
import type { Summary } from '../../reporters/records.ts';

export interface Baseline {
  failed: string[];
  errored: string[];
  observations: string[];
  /** Requests the target held without answering: `<test> :: <request> <answer>`, masked. */
  hangs?: string[];
}

// As scripts/mutation.ts: masks what differs from run to run (ids, timings, counters), keeps status codes.
export const mask = (text: string): string =>
  text
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '<id>')
    .replace(/\d+(\.\d+)? ?(ms|s)\b/g, '<t>')
    .replace(/\d{4,}/g, '<n>');

export interface Run {
  failed: string[];
  errored: string[];
  observations: string[];
  hangs: string[];
  abort?: string;
}

/** A run's findings, read from its summary.json. */
export function runOf(summary: Summary): Run {
  const tests = summary.tests;
  return {
    failed: tests.filter((t) => t.status === 'fail').map((t) => t.name),
    errored: tests.filter((t) => t.status === 'error').map((t) => t.name),
    observations: tests.flatMap((t) => t.observations.map((o) => `${t.name} :: ${mask(o.message)}`)),
    hangs: tests.flatMap((t) =>
      (t.network?.ambiguous ?? [])
        .filter((a) => a.answer.startsWith('no response within'))
        .map((a) => `${t.name} :: ${mask(a.request)} ${mask(a.answer)}`),
    ),
    ...(summary.run.abort ? { abort: summary.run.abort } : {}),
  };
}

/** The findings of `run` the baseline does not have. */
export function findings(run: Run, baseline: Baseline): string[] {
  const failedBefore = new Set(baseline.failed);
  const seen = new Set(baseline.observations);
  const heldBefore = new Set(baseline.hangs ?? []);
  return [
    ...run.failed.filter((t) => !failedBefore.has(t)).map((t) => `FAIL ${t}`),
    ...run.observations.filter((o) => !seen.has(o)).map((o) => `observed ${o}`),
    ...run.hangs.filter((h) => !heldBefore.has(h)).map((h) => `hang ${h}`),
  ];
}

/**
 * How long each test's chain of requests was in the last run: the `requests` of REPORT_DIR/summary.json, written by
 * the previous run in this report directory. The request cap serves the longest chain still to run first (critical
 * path first, as a build tool schedules its longest jobs first from their last durations), so a long chain no longer
 * starts late and ends the run alone. Only an order: a missing or unreadable report changes nothing but the order
 * (the test furthest along goes first then), never a verdict.
 *
 *   chainLength(config.reportDir, name)   // the test's length last time; a typical one for a new test; or undefined
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Lengths {
  byName: Map<string, number>;
  /** For a test the last run did not have: the median length. */
  typical: number | undefined;
}

const loaded = new Map<string, Lengths>();

/** Reads the lengths a report lists (pure on its text; anything unreadable gives none). */
export function chainLengths(summaryJson: string | undefined): Lengths {
  const byName = new Map<string, number>();
  try {
    const summary = JSON.parse(summaryJson ?? '') as { tests?: { name?: unknown; requests?: unknown }[] };
    for (const t of summary.tests ?? []) {
      if (typeof t.name === 'string' && typeof t.requests === 'number' && Number.isInteger(t.requests) && t.requests >= 0) byName.set(t.name, t.requests);
    }
  } catch {
    // no report, or not one of ours: no lengths
  }
  const sorted = [...byName.values()].sort((a, b) => a - b);
  return { byName, typical: sorted.length > 0 ? sorted[Math.floor(sorted.length / 2)] : undefined };
}

/** The test's chain length in the last run in `reportDir`, else the typical one there, else undefined (no report). */
export function chainLength(reportDir: string, name: string): number | undefined {
  let lengths = loaded.get(reportDir);
  if (!lengths) {
    let text: string | undefined;
    try {
      text = readFileSync(join(reportDir, 'summary.json'), 'utf8');
    } catch {
      text = undefined;
    }
    lengths = chainLengths(text);
    loaded.set(reportDir, lengths);
  }
  return lengths.byName.get(name) ?? lengths.typical;
}

/**
 * How long each test's chain of requests is: the `requests` of REPORT_DIR/summary.json, written by the last run in
 * this report directory, else those of suites/chain-lengths.json, shipped with the suite (`npm run chains:update`
 * writes it from a report, as pytest-split keeps its test durations in the repository). The request cap serves the
 * longest chain still to run first (critical path first), so a long chain no longer starts late and ends the run
 * alone. Only an order: a missing, stale or unreadable file changes nothing but the order (the test furthest along
 * goes first then), never a verdict.
 *
 *   chainLength(config.reportDir, name)   // the test's length last time; a typical one for a new test; or undefined
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The lengths shipped with the suite: `{ format, tests: { name: requests } }`. */
export const SHIPPED_LENGTHS = fileURLToPath(new URL('../../suites/chain-lengths.json', import.meta.url));

interface Lengths {
  byName: Map<string, number>;
  /** For a test the last run did not have: the median length. */
  typical: number | undefined;
}

const loaded = new Map<string, Lengths>();

/** Reads the lengths a report (summary.json) or the shipped file lists (pure on its text; anything unreadable gives none). */
export function chainLengths(json: string | undefined): Lengths {
  const byName = new Map<string, number>();
  const add = (name: unknown, requests: unknown) => {
    if (typeof name === 'string' && typeof requests === 'number' && Number.isInteger(requests) && requests >= 0) byName.set(name, requests);
  };
  try {
    const parsed = JSON.parse(json ?? '') as { tests?: unknown };
    if (Array.isArray(parsed.tests)) for (const t of parsed.tests as { name?: unknown; requests?: unknown }[]) add(t?.name, t?.requests);
    else if (parsed.tests && typeof parsed.tests === 'object')
      for (const [name, requests] of Object.entries(parsed.tests)) add(name, requests);
  } catch {
    // no file, or not one of ours: no lengths
  }
  const sorted = [...byName.values()].sort((a, b) => a - b);
  return { byName, typical: sorted.length > 0 ? sorted[Math.floor(sorted.length / 2)] : undefined };
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The test's chain length: the last run's in `reportDir`, else the shipped one, else a typical one, else undefined. */
export function chainLength(reportDir: string, name: string): number | undefined {
  let lengths = loaded.get(reportDir);
  if (!lengths) {
    const last = chainLengths(read(join(reportDir, 'summary.json')));
    const shipped = chainLengths(read(SHIPPED_LENGTHS));
    lengths = { byName: new Map([...shipped.byName, ...last.byName]), typical: last.typical ?? shipped.typical };
    loaded.set(reportDir, lengths);
  }
  return lengths.byName.get(name) ?? lengths.typical;
}

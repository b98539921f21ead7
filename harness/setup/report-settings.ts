/**
 * The reports' settings: REPORT_DIR (where they go), BASELINE and FAIL_ON (which earlier run this one is compared
 * with, and what fails the run); and CHROMIUM_PATH (the browser the bench's browser run needs). The one reader of them
 * for the code that has no Config — the reporters, the scripts, the bench — reading them as the configuration does
 * (harness/setup/config.ts), defaults from the variables table.
 * BASELINE and FAIL_ON are validated here, at start-up with the rest of the configuration, and by the reporters and
 * the shard merge (reporters/compare.ts), which read the baseline's summary.json in full.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { defaultFor, variable } from './variables.ts';

/** The variables of the reports. */
export type ReportVariable = 'REPORT_DIR' | 'BASELINE' | 'FAIL_ON';
/** The variables read outside Config (reporters, scripts, bench) — through this reader, as the run reads them. */
export type SettingVariable = ReportVariable | 'CHROMIUM_PATH' | 'MAX_CONCURRENCY';

/** Where a setting is read from: the environment (default process.env) and a .env file (default ./.env; null = none). */
export interface SettingSource {
  env?: Record<string, string | undefined>;
  dotenv?: string | null;
}

/**
 * A report setting as the run reads it (config.ts loadConfig): the environment wins over `.env` (a variable set to ''
 * too); '' is unset; unset is its row's default in the variables table (harness/setup/variables.ts).
 */
export function reportSetting(name: SettingVariable, from: SettingSource = {}): string | undefined {
  const env = from.env ?? process.env;
  const file = from.dotenv === undefined ? '.env' : from.dotenv;
  const raw = env[name] ?? (file !== null && existsSync(file) ? parseDotenv(readFileSync(file))[name] : undefined);
  return raw?.trim() || defaultFor(variable(name), 'embedded') || undefined;
}

/** CHROMIUM_PATH as the run reads it (its default, the system's Chromium, is the variables table's). */
export function chromiumPathSetting(from: SettingSource = {}): string {
  return reportSetting('CHROMIUM_PATH', from) ?? defaultFor(variable('CHROMIUM_PATH'), 'embedded');
}

/** REPORT_DIR as the run reads it (its default, `reports`, is the variables table's). */
export function reportDirSetting(from: SettingSource = {}): string {
  return reportSetting('REPORT_DIR', from) ?? defaultFor(variable('REPORT_DIR'), 'embedded');
}

export type FailOn = 'any' | 'new';

/** The summary.json a BASELINE value names: the file itself, or `summary.json` in a report directory. */
export function baselineFile(value: string): string {
  return existsSync(value) && statSync(value).isDirectory() ? join(value, 'summary.json') : value;
}

/** Reads a baseline; a problem is one line for `BASELINE must be … (<problem>)`. */
export function readBaselineFile(value: string): { summary: unknown } | { problem: string } {
  if (!existsSync(value)) return { problem: `got "${value}", which does not exist` };
  const file = baselineFile(value);
  if (!existsSync(file)) return { problem: `got "${value}", a directory without summary.json` };
  let parsed: { format?: unknown; tests?: unknown; clauses?: unknown; run?: unknown };
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as typeof parsed;
  } catch (err) {
    return { problem: `got "${file}", which is not valid JSON: ${(err as Error).message}` };
  }
  if (parsed.format !== 'conformance-summary/1' || !Array.isArray(parsed.tests) || !Array.isArray(parsed.clauses) || !parsed.run) {
    return { problem: `got "${file}", which is not a conformance summary (format conformance-summary/1)` };
  }
  return { summary: parsed };
}

export const BASELINE_WHAT = 'the REPORT_DIR of an earlier run, or its summary.json';
export const BASELINE_EXAMPLE = 'baseline-reports';

/** A bad BASELINE or FAIL_ON: one line naming the variable (harness/setup/config.ts turns it into a ConfigError). */
export class SettingError extends Error {
  override name = 'SettingError';
  constructor(
    message: string,
    readonly variable: 'BASELINE' | 'FAIL_ON',
  ) {
    super(message);
  }
}

/** BASELINE and FAIL_ON, validated: the baseline must be readable; FAIL_ON=new needs it. '' is unset. */
export function readReportSettings(get: (name: string) => string | undefined): { baseline?: string; failOn: FailOn } {
  const baseline = get('BASELINE')?.trim() || undefined;
  if (baseline !== undefined) {
    const read = readBaselineFile(baseline);
    if ('problem' in read)
      throw new SettingError(`BASELINE must be ${BASELINE_WHAT} (${read.problem}); example: BASELINE=${BASELINE_EXAMPLE}`, 'BASELINE');
  }
  const failOn = get('FAIL_ON')?.trim() || 'any';
  if (failOn !== 'any' && failOn !== 'new') {
    throw new SettingError(
      `FAIL_ON must be one of any | new (what fails the run: any failure, or only a failure that is not in BASELINE) ` +
        `(got "${failOn}"); example: FAIL_ON=new`,
      'FAIL_ON',
    );
  }
  if (failOn === 'new' && baseline === undefined) {
    throw new SettingError(
      `FAIL_ON=new needs BASELINE, the earlier run whose failures are known (${BASELINE_WHAT}); example: ` +
        `BASELINE=${BASELINE_EXAMPLE} FAIL_ON=new, or unset FAIL_ON`,
      'FAIL_ON',
    );
  }
  return { ...(baseline === undefined ? {} : { baseline }), failOn };
}

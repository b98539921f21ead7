/**
 * Settings written as `.env` lines that dotenv reads back to the same value, and the check that a setting as written
 * is read as meant. dotenv (the reader of .env and REPORT_DIR/discovered.env) ends an unquoted value at its first `#`
 * (a comment), trims it and removes a pair of quotes around it: `SCREEN_CHALLENGE_CODE=shown-in:#code` is read as
 * `shown-in:`. So the suite quotes what it writes where needed (envLine), and a line of the user's whose unquoted value
 * holds a `#` is a configuration error naming the variable and the quoting (cutSettings), never a silent change.
 */
import { parse as parseDotenv } from 'dotenv';
import { ConfigError } from './errors.ts';

/** A value dotenv reads as written without quotes: no `#`, no line break, no quote or space at its ends. */
const BARE = /^(?![\s'"`])[^#\r\n\u2028\u2029]*(?<!\s)$/u;

/**
 * `value` written for a .env line so that dotenv reads it back exactly: bare where it can, else in the first quotes
 * that hold it (single and backticks keep everything but themselves; double quotes turn `\n` into a line break).
 * Every candidate is proven by dotenv's own parse; a value no quoting holds (all three quote kinds and a line break
 * or `\n`) throws.
 */
export function envValue(value: string): string {
  const candidates = [
    ...(BARE.test(value) ? [value] : []),
    `'${value}'`,
    `\`${value}\``,
    `"${value.replace(/\r/g, '\\r').replace(/\n/g, '\\n')}"`,
  ];
  for (const written of candidates) if (parseDotenv(`V=${written}\n`).V === value) return written;
  throw new EnvValueError(value);
}

/** `NAME=value`, quoted where dotenv would otherwise read something else. */
export function envLine(name: string, value: string): string {
  try {
    return `${name}=${envValue(value)}`;
  } catch (err) {
    if (err instanceof EnvValueError) throw new ConfigError(`${name}: ${err.message}`, name);
    throw err;
  }
}

export class EnvValueError extends Error {
  constructor(value: string) {
    super(
      `a value of ${value.length} characters holding ', " and \` with a line break cannot be written to a .env file: set it in the environment`,
    );
  }
}

/** A line whose value dotenv reads only up to a `#`: the variable, what is read, and the line's value as written. */
export interface CutSetting {
  name: string;
  read: string;
  written: string;
  line: number;
}

/**
 * The settings of a .env text that dotenv cuts at a `#`: an unquoted value holding `#` (`shown-in:#code`, a secret
 * with `#`), or followed by ` # …`, which dotenv takes for a comment but may be the rest of the value. Lines inside a
 * quoted value spanning lines are skipped.
 */
export function cutSettings(text: string): CutSetting[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const cut: CutSetting[] = [];
  let openQuote: string | undefined;
  lines.forEach((line, i) => {
    if (openQuote !== undefined) {
      if (line.includes(openQuote)) openQuote = undefined;
      return;
    }
    const m = /^\s*(?:export\s+)?([\w.-]+)\s*=\s*(.*)$/.exec(line);
    if (!m) return;
    const [, name, rest] = m as unknown as [string, string, string];
    const quote = /^['"`]/.exec(rest)?.[0];
    if (quote !== undefined) {
      if (!rest.slice(1).includes(quote)) openQuote = quote;
      return;
    }
    const at = rest.indexOf('#');
    if (at < 0) return;
    cut.push({ name, read: rest.slice(0, at).trim(), written: rest.trim(), line: i + 1 });
  });
  return cut;
}

/**
 * Throws the ConfigError of the first setting of `names` that `file` (a .env text) has cut at a `#`: its name, what
 * is read, and the line quoted (a secret's value never shown).
 */
export function assertNotCut(text: string, file: string, isSecret: (name: string) => boolean, names: ReadonlySet<string>): void {
  const first = cutSettings(text).find((c) => names.has(c.name));
  if (!first) return;
  const { name, read, written, line } = first;
  const quoted = isSecret(name) ? `${name}='<its value>'` : envLine(name, written);
  const got = isSecret(name) ? `a value of ${read.length} characters` : `"${read}"`;
  throw new ConfigError(
    `${name} in ${file} (line ${line}) holds an unquoted "#": a .env reader takes the rest for a comment and reads ` +
      `${got}; quote the value, e.g. ${quoted} (a comment goes on a line of its own)`,
    name,
  );
}

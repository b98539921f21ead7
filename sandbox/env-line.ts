/**
 * A `NAME=value` line of the sandbox's banner that a .env reader (dotenv) reads back as printed: a value with a `#`,
 * a quote, a line break or a space at an end is put in single quotes (its own writer: the sandbox does not import the
 * judge's harness/setup/env-file.ts). A value holding a single quote goes in backticks, failing that double quotes.
 */
const BARE = /^(?![\s'"`])[^#\r\n\u2028\u2029]*(?<!\s)$/u;

export function envLine(name: string, value: string): string {
  if (BARE.test(value)) return `${name}=${value}`;
  if (!value.includes("'") && !value.includes('\r')) return `${name}='${value}'`;
  if (!value.includes('`') && !value.includes('\r')) return `${name}=\`${value}\``;
  return `${name}="${value.replace(/\r\n?|\n/g, '\\n')}"`;
}

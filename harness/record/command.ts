/**
 * The command the user runs, to name it in every line printed or written: `npx payment-conformance run …` where the
 * package is installed (bin/payment-conformance.js sets PAYMENT_CONFORMANCE_COMMAND; or this file is under
 * node_modules), `npm run conformance -- …` in a clone of the repository.
 */
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each command of the installed bin, and the npm script that runs it in a clone. */
const SCRIPTS = { run: 'conformance', discover: 'discover', sandbox: 'sandbox', mutation: 'mutation', merge: 'reports:merge' } as const;
export type Command = keyof typeof SCRIPTS;

export function installed(): boolean {
  return (
    Boolean(process.env['PAYMENT_CONFORMANCE_COMMAND']?.trim()) ||
    fileURLToPath(import.meta.url)
      .split(sep)
      .includes('node_modules')
  );
}

/** `command('run', "-t 'x'")`: `npx payment-conformance run -t 'x'` installed, `npm run conformance -- -t 'x'` in a clone. */
export function command(name: Command, args = ''): string {
  const rest = args.trim();
  if (installed())
    return `${process.env['PAYMENT_CONFORMANCE_COMMAND']?.trim() || 'npx payment-conformance'} ${name}${rest ? ` ${rest}` : ''}`;
  return `npm run ${SCRIPTS[name]}${rest ? ` -- ${rest}` : ''}`;
}

/** A line that names a command the clone's way (`npm run conformance -- …`), in the user's words. */
export function spoken(text: string): string {
  if (!installed()) return text;
  return text.replace(/npm run ([\w:-]+)( -- )?/g, (whole, script: string, dashes: string | undefined) => {
    const name = (Object.keys(SCRIPTS) as Command[]).find((c) => SCRIPTS[c] === script);
    return name ? `${command(name)}${dashes ? ' ' : ''}` : whole;
  });
}

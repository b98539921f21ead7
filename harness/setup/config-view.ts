/**
 * The configuration as held, shown and guarded: every row's `at` checked against Config at compile time, each secret
 * registered for redaction by its value, and the one-line-per-variable summary (secrets as [set]/[unset]) that
 * configuration.txt and `--verbose` print — all read from the variables table (variables.ts).
 */
import { secrets } from '../record/redact.ts';
import { isInputName } from '../payer/fields.ts';
import { envValue } from './env-file.ts';
import type { Config } from './config-types.ts';
import { CONFIG_ROWS, type ConfigVariable, type Variable, type VARIABLES } from './variables.ts';

/** A path of Config: where a row says the configuration holds its value (checked here, where Config is known). */
type PathOf<T> = T extends readonly unknown[]
  ? never
  : T extends object
    ? { [K in keyof T & string]-?: K | `${K}.${PathOf<NonNullable<T[K]>>}` }[keyof T & string]
    : never;
type NotHeld = Exclude<Extract<(typeof VARIABLES)[number], { at: string }>['at'], PathOf<Config>>;
/** Compiles only while every row's `at` is a path of Config. */
export const everyAtIsAPath: [NotHeld] extends [never] ? true : NotHeld = true;

/** Held otherwise than as written. */
const WRITTEN: Partial<Record<ConfigVariable, (c: Config) => string | undefined>> = {
  ACCOUNT_AUTH: (c) => (c.accountAuthAuto ? 'auto' : c.accountAuth),
  WEBHOOK_SIGNATURE_KEY: (c) => (c.webhook.signatureUnkeyed ? 'none' : undefined),
  SCREEN_CHALLENGE_CODE: ({ challengeCode: code }) => code && ('code' in code ? code.code : `shown-in:${code.shownIn}`),
};

/** A variable's value as the configuration holds it, written as it would be set; undefined = unset. */
function held(config: Config, v: Variable & { name: ConfigVariable }): string | undefined {
  const written = WRITTEN[v.name];
  if (written) return written(config);
  const value = v.at?.split('.').reduce<unknown>((o, key) => (o as Record<string, unknown> | undefined)?.[key], config);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.join(',') || undefined;
  if (value && typeof value === 'object') return Object.keys(value).length > 0 ? JSON.stringify(value) : undefined;
  return value === undefined ? undefined : String(value);
}

/** Every secret variable with a redaction kind, registered by its value. */
export function registerSecrets(config: Config): void {
  for (const v of CONFIG_ROWS) {
    if (typeof v.secret === 'string') secrets.add(held(config, v), v.secret);
  }
  // A vendor's screen may name its card fields otherwise: their values are removed/masked by those names too.
  // (A CSS selector names no field: such values are still redacted by value.)
  const { numeroTarjeta, cvv } = config.screenFieldNames;
  if (numeroTarjeta && isInputName(numeroTarjeta)) secrets.addField(numeroTarjeta, 'card-number');
  if (cvv && isInputName(cvv)) secrets.addField(cvv, 'cvv');
}

/** What an unset variable means where "[unset]" would not say it. */
const UNSET_SHOWN: Partial<Record<ConfigVariable, string>> = {
  REDIRECT_HASH_KEY: '[unset: the client secret]',
  WEBHOOK_SIGNATURE_KEY: '[unset: the client secret]',
  FC_SEED: '[unset: random]',
  ALLOW_DESTRUCTIVE: '(none)',
};

/** The configuration for printing: one `VARIABLE=value` line each, in the table's order; secrets as [set]/[unset]. */
export function redactedConfigSummary(config: Config): string {
  const showUrl = (value: string) => {
    const u = new URL(value);
    if (u.password) u.password = 'REDACTED';
    return u.toString().replace(/\/+$/, '');
  };
  const shown = (v: Variable & { name: ConfigVariable }): string => {
    const name = v.name;
    if (config.target.kind === 'embedded' && (name === 'API_BASE_URL' || v.target === 'remote')) return '(embedded sandbox)';
    const value = held(config, v);
    if (value === undefined) return UNSET_SHOWN[name] ?? '[unset]';
    // '' is REDIRECT_HASH_KEY=none: no key.
    if (v.secret) return value === '' ? 'none' : '[set]';
    // As a .env reader would read it back (a `#` in a selector quoted: env-file.ts).
    return envValue(v.type.kind === 'url' ? showUrl(value) : value);
  };
  const lines = CONFIG_ROWS.filter((v) => v.at).map((v) => `${v.name}=${shown(v)}`);
  return [`target=${config.target.kind}`, ...lines].join('\n');
}

/**
 * The variant catalogue, the other half of the fault catalogue (sandbox/faults.ts): spec-valid implementations of
 * what the spec leaves open, each made differently from the sandbox's default. The suite must pass every one
 * (`npm run mutation`: a variant with a FAIL or ERROR is a false positive of the suite).
 * Selected with `options.variant` / SANDBOX_VARIANT / `--variant` as `id[,id…]`; `all` = every variant that composes
 * with the others. Every variant is checked with `variant('<id>')` right beside the behaviour it changes.
 * `settings`: what a vendor would hand the suite with such an implementation (variables of .env.example), applied
 * by the harness where the user set nothing.
 */
export interface VariantEntry {
  id: string;
  area: string;
  description: string;
  /** Suite settings a vendor would give with this implementation (a hash scheme, field names). */
  settings?: Readonly<Record<string, string>>;
  /** False when it cannot be combined with others (left out of `all`). */
  composes?: false;
}

export const VARIANTS = [
  { id: 'token-ttl-short', area: 'auth', description: '5.2: access tokens live 120 s (expires_in 120) instead of an hour' },
  // Hosted pages (spec 1, 4.1, 4.3, 4.6: the pages' layout, fields and language are not shown). sandbox/card-fields.ts.
  {
    id: 'pages-autofill-names',
    area: 'pages',
    description: '1/4.1: the card inputs of every hosted page are named by their HTML autofill tokens (cc-number, cc-csc, cc-exp-month, cc-exp-year, cc-name, email)',
    settings: {
      SCREEN_FIELD_NAMES: JSON.stringify({ numeroTarjeta: 'cc-number', cvv: 'cc-csc', mesVencimiento: 'cc-exp-month', anioVencimiento: 'cc-exp-year', nombreTitular: 'cc-name', email: 'email', codigoDesafio: 'one-time-code' }),
    },
  },
  { id: 'pages-english', area: 'pages', description: '1/4.1: the hosted pages speak English (lang="en"), with other labels and another field order: e-mail and name first, then the card (expiry year before month), then the payment method' },
  { id: 'pages-session-token', area: 'pages', description: '1/4.1: every hosted page sets a session cookie and its form must send back the matching hidden token (else 403)' },
  { id: 'pages-ask-card', area: 'pages', description: '4.3/4.6: the 3DS page and the quick-pay page ask for the card (number, expiry, cvv); missing or malformed data shows the form again with the errors (422)' },
  {
    id: 'threeds-challenge-code',
    area: 'pages',
    description: '4.3: the 3DS page is a challenge: it shows a test code (6 digits, per transaction) that must be entered; a wrong or missing code shows the page again with the error (422)',
    settings: { SCREEN_CHALLENGE_CODE: 'shown-in:#codigo-prueba' },
  },
  // Account authentication (5.5: "how account user-and-password authentication is performed: not shown").
  {
    id: 'account-password-grant',
    area: 'auth',
    description: '5.5: account endpoints take only account tokens, issued at {auth_url}/connect/token for grant_type=password (username, password, with a business\'s client credentials); HTTP Basic is refused',
    settings: { ACCOUNT_AUTH: 'password-grant' },
  },
] as const satisfies readonly VariantEntry[];

export type VariantId = (typeof VARIANTS)[number]['id'];
/** True when the sandbox was started with this variant. */
export type Variant = (id: VariantId) => boolean;

/** The ids of a SANDBOX_VARIANT value: `id[,id…]` or `all`; unknown ids throw. */
export function variantIds(selected: string | undefined): VariantId[] {
  if (selected === undefined || selected.trim() === '') return [];
  const entries: readonly VariantEntry[] = VARIANTS;
  if (selected.trim() === 'all') return entries.filter((v) => v.composes !== false).map((v) => v.id as VariantId);
  const ids = selected.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unknown = ids.filter((id) => !entries.some((v) => v.id === id));
  if (unknown.length > 0) {
    throw new Error(`unknown sandbox variant "${unknown.join(', ')}"; valid: all, ${entries.map((v) => v.id).join(', ')}`);
  }
  return ids as VariantId[];
}

export function selectVariants(selected: string | undefined): Variant {
  const ids = new Set<string>(variantIds(selected));
  return (id) => ids.has(id);
}

/** The suite settings of the selected variants (later ones win), as a vendor would give them. */
export function variantSettings(selected: string | undefined): Record<string, string> {
  const entries: readonly VariantEntry[] = VARIANTS;
  const ids = variantIds(selected);
  return Object.assign({}, ...entries.filter((v) => ids.includes(v.id as VariantId)).map((v) => v.settings ?? {}));
}

/**
 * `npm run discover`: learns a remote target's conventions from the credentials given and writes them to
 * REPORT_DIR/discovered.env, which `npm run conformance` reads below the environment and .env for what the user did
 * not set (harness/setup/config.ts; only for the API_BASE_URL named in its DISCOVERED_FOR line). Each setting found comes with
 * its evidence as a comment; each one not found, with how to find it. It creates only development links and payments:
 * the same probe and production interlock as a run (harness/setup/target.ts, harness/setup/interlock.ts) come first.
 * Exit 0 when it found everything a run needs, 1 when something was not found (said in one line at the end) or the
 * target is unusable or in production, 2 on a configuration error.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig, type Config } from '../harness/setup/config.ts';
import { createRunHttp, createRunPayer, probeTarget, selectTarget, type TargetInfo } from '../harness/setup/target.ts';
import { Interlock, PRODUCTION_MESSAGE } from '../harness/setup/interlock.ts';
import { createTokenCache } from '../harness/api/tokens.ts';
import { chooseOption, type FieldName, type FieldNames, type Payer, type ScreenForm } from '../harness/payer/index.ts';
import { headingOf, shownCode } from '../harness/payer/steps.ts';
import { describeOptions } from '../harness/payer/fields.ts';
import { startReceiver, type Receiver } from '../harness/api/receiver.ts';
import { secrets } from '../harness/record/redact.ts';
import { command } from '../harness/record/command.ts';
import { envLine } from '../harness/setup/env-file.ts';
import type { Http } from '../harness/api/http.ts';
import { discoverAccountAuth } from '../harness/discovery/account-auth.ts';
import { discoverAudience } from '../harness/discovery/audience.ts';
import {
  describeRedirectScheme,
  describeWebhookSignature,
  findRedirectScheme,
  findWebhookSignature,
  redirectSchemeSettings,
  webhookSignatureSettings,
} from '../harness/judge/schemes.ts';
import { paymentLinkMinimal, purchase3ds, purchaseWallet } from '../generators/bodies.ts';
import { describeMapping, discoverFields, isDiscovered, notFoundMessage } from '../harness/payer/field-mapping.ts';
import { Chromium } from '../harness/payer/chromium.ts';

/** One setting's outcome: the variables found (with the evidence), or how to find them. */
interface Finding {
  what: string;
  settings?: Record<string, string>;
  /** What was learnt sets no variable. */
  noted?: true;
  evidence: string;
  howToFind?: string;
}

let config: Config;
try {
  // What an earlier discovery wrote is not applied: this one finds it afresh.
  config = loadConfig(process.env, { discovered: false });
  if (config.target.kind !== 'remote') {
    throw new ConfigError(
      `${command('discover')} probes a remote target: set API_BASE_URL, AUTH_URL, CLIENT_ID and CLIENT_SECRET (and ` +
        `ACCOUNT_USER, ACCOUNT_PASSWORD)`,
      'API_BASE_URL',
    );
  }
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`configuration error: ${err.message}`);
    process.exit(2);
  }
  throw err;
}

const { info: selected } = await selectTarget(config);
// The audience first: every later step needs a token, and a service may issue them only for an audience of its own.
const audienceFinding = await tokenAudience(selected);
const target = await probeTarget(selected, config);
if (target.unreachable) {
  console.error(`discover: the target cannot be used: ${target.unreachable}`);
  process.exit(1);
}
if (target.mode === 'production') {
  console.error(`discover: ${PRODUCTION_MESSAGE}`);
  process.exit(1);
}
const interlock = new Interlock(target);
const http = createRunHttp(config, target.deadline);
// One browser for the payers of every step (launched only if a step pays in it).
const chromium = new Chromium(config.payer.chromiumPath);
const findings: Finding[] = [audienceFinding];
/** Set by the 3DS probe: the code its page shows, where it shows one. */
let challengeFinding: Finding | undefined;
let receiver: Receiver | undefined;
try {
  findings.push(await accountAuth(target, http));
  findings.push(clockControl(target));
  findings.push(await tokenLifetime(target, http));
  receiver = await startReceiver({
    host: config.receiver.host,
    port: config.receiver.port,
    ...(config.receiver.publicUrl ? { publicUrl: config.receiver.publicUrl } : {}),
  });
  const token = await createTokenCache({
    http,
    tokenUrl: `${target.authUrl}/connect/token`,
    clientId: target.business.clientId,
    clientSecret: target.business.clientSecret,
    audience: config.tokenAudience,
  }).get();
  // Payments follow: only for a business the probe saw in development (the run's interlock).
  interlock.assertMayPay();
  findings.push(await redirectHash(target, http, token, receiver));
  if (challengeFinding) findings.push(challengeFinding);
  findings.push(await webhookSignature(target, http, token, receiver));
  findings.push(await screenFieldMapping(target, http, token));
} catch (err) {
  findings.push({
    what: 'the rest',
    evidence: `discovery stopped: ${secrets.redactText((err as Error).message)}`,
    howToFind: `fix the cause and run ${command('discover')} again`,
  });
} finally {
  await receiver?.close();
  await http.close();
  await chromium.close();
}

const file = join(config.reportDir, 'discovered.env');
const text = render(findings);
mkdirSync(config.reportDir, { recursive: true });
writeFileSync(file, text);
console.log(`${text}\n# written to ${file}; ${command('run')} uses these for what you did not set`);
// Something a run needs and discovery did not find: not a success, whatever else was found.
const notFound = findings.filter((f) => !f.noted && !f.settings);
if (notFound.length > 0)
  console.error(
    `discover: NOT FOUND: ${notFound.map((f) => f.what).join('; ')} — a run leaves what they decide unchecked; each says above how to find it`,
  );
process.exit(notFound.length > 0 ? 1 : 0);

/** TOKEN_AUDIENCE: the configured one when it gets a token, else one the issuer publishes or its host names. */
async function tokenAudience(t: TargetInfo): Promise<Finding> {
  const what = 'the token audience (TOKEN_AUDIENCE)';
  const h = createRunHttp(config, t.deadline);
  try {
    const found = await discoverAudience({
      http: h,
      authUrl: t.authUrl,
      baseUrl: t.baseUrl,
      business: t.business,
      audience: config.tokenAudience,
    });
    if (found.audience === undefined)
      return {
        what,
        evidence: found.evidence,
        howToFind: 'ask the vendor which audience its token endpoint expects and set TOKEN_AUDIENCE',
      };
    if (found.audience === config.tokenAudience)
      return { what, noted: true, evidence: `${found.audience} is accepted (${found.evidence})` };
    config = Object.freeze({ ...config, tokenAudience: found.audience });
    return {
      what,
      settings: { TOKEN_AUDIENCE: found.audience },
      evidence:
        `${found.evidence}; spec 5.1 says service_api: the run reports that once (5.1-audience) and uses ` +
        `${found.audience} for everything else`,
    };
  } finally {
    await h.close();
  }
}

async function accountAuth(t: TargetInfo, h: Http): Promise<Finding> {
  const what = 'account authentication (ACCOUNT_AUTH)';
  if (!t.account)
    return {
      what,
      noted: true,
      evidence: 'no account credentials given',
      howToFind: `set ACCOUNT_USER and ACCOUNT_PASSWORD and run ${command('discover')} again`,
    };
  const found = await discoverAccountAuth({
    http: h,
    baseUrl: t.baseUrl,
    authUrl: t.authUrl,
    business: t.business,
    account: t.account,
    audience: config.tokenAudience,
  });
  return found.found
    ? { what, settings: { ACCOUNT_AUTH: found.accountAuth }, evidence: found.evidence }
    : {
        what,
        evidence: found.evidence,
        howToFind:
          'ask the vendor how account user and password are sent (HTTP Basic, or an OAuth2 password grant at AUTH_URL) ' +
          'and set ACCOUNT_AUTH',
      };
}

function clockControl(t: TargetInfo): Finding {
  const what = "the target's clock (MAX_WAIT_S)";
  if (t.capabilities.includes('clock'))
    return {
      what,
      noted: true,
      evidence: `the target has a test-control API with clock control (${t.controlUrl}): time limits are reached by moving its clock`,
    };
  return {
    what,
    noted: true,
    evidence:
      `no test-control API at ${t.controlUrl}: time limits (vigencia, duracionInterfazIntentoMinutos, ` +
      `expires_in, the quick-pay QR) are waited for in real time, each up to MAX_WAIT_S`,
  };
}

async function tokenLifetime(t: TargetInfo, h: Http): Promise<Finding> {
  const ex = await h.request({
    method: 'POST',
    url: `${t.authUrl}/connect/token`,
    form: {
      grant_type: 'client_credentials',
      audience: config.tokenAudience,
      client_id: t.business.clientId,
      client_secret: t.business.clientSecret,
    },
    idempotent: true,
    label: 'token lifetime',
  });
  const body = ex.response?.json as { access_token?: unknown; expires_in?: unknown } | undefined;
  if (typeof body?.access_token === 'string') secrets.add(body.access_token, 'access-token');
  const expiresIn = Number(body?.expires_in);
  const what = 'the token lifetime (expires_in)';
  if (!Number.isFinite(expiresIn) || expiresIn <= 0)
    return { what, noted: true, evidence: `the token response has no positive expires_in (${JSON.stringify(body?.expires_in)})` };
  const waits = t.capabilities.includes('clock') || expiresIn <= config.budget.maxWaitS;
  return {
    what,
    noted: true,
    evidence: `expires_in ${expiresIn} s: the token-lifetime test ${waits ? 'runs' : `skips unless MAX_WAIT_S >= ${expiresIn + 1}`}`,
  };
}

/** A 3DS purchase completed on its page: the redirect's hash against every candidate scheme. */
async function redirectHash(t: TargetInfo, h: Http, token: string, r: Receiver): Promise<Finding> {
  const what = 'the redirect hash (REDIRECT_HASH)';
  const request = purchase3ds(r.redirectUrl('discover'), config.testData);
  const ex = await h.request({
    method: 'POST',
    url: `${t.baseUrl}/TransaccionCompra/3DS`,
    headers: { authorization: `Bearer ${token}` },
    json: request,
    idempotent: false,
    label: 'discover: 3DS purchase',
  });
  const url = (ex.response?.json as { urlCompletarPago3Ds?: unknown } | undefined)?.urlCompletarPago3Ds;
  if (typeof url !== 'string')
    return {
      what,
      evidence: `POST /TransaccionCompra/3DS answered ${ex.response?.status ?? 'nothing'} without urlCompletarPago3Ds`,
      howToFind:
        'ask the vendor for the algorithm, key, encoding and fields of the hash and set REDIRECT_HASH and its companions (.env.example)',
    };
  const payer = createRunPayer(config, h, { chromium });
  {
    // A page that asks for the card again gets the purchase's own card (as the suites' complete3ds does).
    const card = {
      ...request.tarjetaCreditoDebido,
      nombreTitular: `${request.nombre} ${request.apellido}`,
      email: request.email,
      ...(config.challengeCode ? { codigoDesafio: config.challengeCode } : {}),
    };
    const page = new URL(url, ex.request.url).href;
    challengeFinding = await challengeCode(payer, page);
    const outcome = await payer.pay({ kind: '3ds', url: page, redirectPrefix: request.urlRedirect, card });
    if (outcome.kind !== 'redirect') {
      const heading = headingOf(outcome.html);
      return {
        what,
        evidence:
          `the 3DS page could not be got through: it ended on ` +
          `${outcome.kind === 'refused' ? 'a refusal' : 'a page'} (status ` +
          `${outcome.status}${heading ? `, "${heading}"` : ''}): "${outcome.text}", not a redirect to urlRedirect`,
        howToFind:
          "set SCREEN_CHALLENGE_CODE if the page asks for a code it does not show, or REDIRECT_HASH and its companions from the vendor's documentation",
      };
    }
    const found = findRedirectScheme(outcome.params, t.business.clientSecret);
    return found.scheme
      ? {
          what,
          settings: redirectSchemeSettings(found.scheme, 'api'),
          evidence:
            `the hash of a completed 3DS payment (idTransaccion ${outcome.params['idTransaccion']}) verifies ` +
            `as ${describeRedirectScheme(found.scheme)}`,
        }
      : {
          what,
          evidence: `no candidate verified the hash of idTransaccion ${outcome.params['idTransaccion']}; tried ${found.tried}`,
          howToFind:
            'ask the vendor for the algorithm, key, encoding and fields of the hash (REDIRECT_HASH, REDIRECT_HASH_KEY, ' +
            'REDIRECT_HASH_ENCODING, REDIRECT_HASH_VALUES, REDIRECT_HASH_ORDER)',
        };
  }
}

/**
 * SCREEN_CHALLENGE_CODE: a 3DS page that shows its test code (an issuer's test page) — where it shows it, as
 * `shown-in:<selector>` when the element has an id; the payers read a code shown in words without a setting.
 */
async function challengeCode(payer: Payer, url: string): Promise<Finding | undefined> {
  const what = "the 3DS page's test code (SCREEN_CHALLENGE_CODE)";
  if (config.challengeCode) return undefined;
  const screen = await payer.openScreen(url).catch(() => undefined);
  const shown = screen && shownCode(screen.html);
  if (!screen || !shown) return undefined;
  return shown.selector
    ? {
        what,
        settings: { SCREEN_CHALLENGE_CODE: `shown-in:${shown.selector}` },
        evidence: `the 3DS page shows a code (${shown.code.length} digits) in ${shown.selector}`,
      }
    : {
        what,
        noted: true,
        evidence: `the 3DS page shows a code (${shown.code.length} digits) in its text: the payers read and type it without a setting`,
      };
}

/** A wallet purchase notified to the receiver: its headers and raw body against every candidate signature. */
async function webhookSignature(t: TargetInfo, h: Http, token: string, r: Receiver): Promise<Finding> {
  const what = 'the webhook signature (WEBHOOK_SIGNATURE)';
  const request = { ...purchaseWallet(config.testData), configuracion: { urlWebhook: r.webhookUrl('discover') } };
  const ex = await h.request({
    method: 'POST',
    url: `${t.baseUrl}/TransaccionCompra/Wallet`,
    headers: { authorization: `Bearer ${token}` },
    json: request,
    idempotent: false,
    label: 'discover: wallet purchase',
  });
  const id = (ex.response?.json as { idTransaccion?: unknown } | undefined)?.idTransaccion;
  if (id === undefined)
    return {
      what,
      evidence: `POST /TransaccionCompra/Wallet answered ${ex.response?.status ?? 'nothing'} without idTransaccion`,
      howToFind: "set WEBHOOK_SIGNATURE, WEBHOOK_SIGNATURE_HEADER and WEBHOOK_SIGNATURE_ENCODING from the vendor's documentation",
    };
  const webhook = await r.waitForWebhook((w) => w.tag === 'discover', config.webhook.timeoutS * 1000).catch(() => undefined);
  if (!webhook)
    return {
      what,
      evidence: `no webhook reached ${r.webhookUrl('discover')} within ${config.webhook.timeoutS} s`,
      howToFind: `set WEBHOOK_PUBLIC_URL to a URL at which the target reaches this machine (a tunnel) and run ${command('discover')} again`,
    };
  const found = findWebhookSignature(webhook.headers, webhook.rawBody, t.business.clientSecret);
  return found.scheme
    ? {
        what,
        settings: webhookSignatureSettings(found.scheme),
        evidence: `the webhook of idTransaccion ${String(id)} verifies as ${describeWebhookSignature(found.scheme)}`,
      }
    : {
        what,
        evidence: `no candidate verified the webhook of idTransaccion ${String(id)}; tried ${found.tried}`,
        howToFind: 'ask the vendor how webhooks are signed and set WEBHOOK_SIGNATURE and its companions (.env.example)',
      };
}

/**
 * The hosted payment screen's field mapping (SCREEN_FIELD_NAMES): a development link's screen opened and its inputs
 * mapped as the payers map them (harness/payer/field-mapping.ts: autofill token, label, options, type). Written only
 * where it differs from the suite's default names; a card field not found says how to find it.
 */
async function screenFieldMapping(t: TargetInfo, h: Http, token: string): Promise<Finding> {
  const what = "the payment screen's fields (SCREEN_FIELD_NAMES)";
  const howToFind =
    "open a link's urlEnlace in a browser, read the name (or a CSS selector) of each card input, and set SCREEN_FIELD_NAMES (see .env.example)";
  const ex = await h.request({
    method: 'POST',
    url: `${t.baseUrl}/EnlacePago`,
    headers: { authorization: `Bearer ${token}` },
    json: paymentLinkMinimal(),
    idempotent: false,
    label: 'discover: payment link',
  });
  const link = ex.response?.json as { urlEnlace?: unknown } | undefined;
  if (typeof link?.urlEnlace !== 'string')
    return { what, evidence: `POST /EnlacePago answered ${ex.response?.status ?? 'nothing'} without urlEnlace`, howToFind };
  const payer = createRunPayer(config, h, { fields: 'defaults', chromium });
  const screen = await payer.openScreen(new URL(link.urlEnlace, ex.request.url).href);
  const mapping = discoverFields(screen.html);
  const card = ['numeroTarjeta', 'cvv', 'mesVencimiento', 'anioVencimiento'] as const;
  const missing = card.filter((f) => !mapping.found[f]);
  if (missing.length > 0)
    return { what, evidence: notFoundMessage(`the screen of ${String(link.urlEnlace)}`, [...missing], mapping), howToFind };
  const evidence = `on the screen of ${String(link.urlEnlace)}: ${describeMapping(mapping)}`;
  // The card's month and year in the page's selects: an option not matched by meaning is SCREEN_OPTION_VALUES's to map.
  const unmatched = unmatchedOptions(screen.form, mapping.names);
  const optionsHow =
    unmatched.length > 0
      ? `no option of ${unmatched.join('; ')}: set SCREEN_OPTION_VALUES, e.g. {"mesVencimiento":{"1":"<the option's value for January>"}}`
      : undefined;
  if (!isDiscovered(mapping))
    return {
      what,
      evidence: `${evidence} (the suite's default names: nothing to set)`,
      ...(optionsHow ? { howToFind: optionsHow } : { noted: true }),
    };
  const names = Object.fromEntries(Object.entries(mapping.found).map(([field, f]) => [field, f.target]));
  return { what, settings: { SCREEN_FIELD_NAMES: JSON.stringify(names) }, evidence, ...(optionsHow ? { howToFind: optionsHow } : {}) };
}

/** The month and year selects whose options hold none meaning the suite's test card (January, three years on). */
function unmatchedOptions(form: ScreenForm | undefined, names: FieldNames): string[] {
  const sought: [FieldName, string][] = [
    ['mesVencimiento', '1'],
    ['anioVencimiento', String(new Date().getUTCFullYear() + 3)],
  ];
  return sought.flatMap(([field, value]) => {
    const values = form?.selects[names[field]];
    if (values === undefined) return [];
    const options = values.map((v, i) => ({ value: v, text: form!.optionTexts[names[field]]?.[i] ?? v }));
    return chooseOption(field, value, options, config.screenOptionValues) === undefined
      ? [`${field} (${names[field]}) means "${value}": it offers ${describeOptions(options)}`]
      : [];
  });
}

function render(all: Finding[]): string {
  const lines = [
    `# Settings discovered by ${command('discover')} at ${new Date().toISOString()} (REPORT_DIR/discovered.env).`,
    `# ${command('run')} applies them to the target below where neither the environment nor .env sets them.`,
    envLine('DISCOVERED_FOR', target.baseUrl),
    '',
  ];
  for (const f of all) {
    lines.push(`# ${f.what}: ${f.noted ? 'noted' : f.settings ? 'found' : 'NOT FOUND'}`, `#   evidence: ${secrets.redactText(f.evidence)}`);
    if (f.howToFind) lines.push(`#   how to find it: ${f.howToFind}`);
    // Quoted where a .env reader would read something else (a `#` in a CSS selector: harness/setup/env-file.ts).
    for (const [name, value] of Object.entries(f.settings ?? {})) lines.push(envLine(name, value));
    lines.push('');
  }
  return lines.join('\n');
}

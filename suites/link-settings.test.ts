/**
 * A link's own settings are enforced where the payment is processed, not only on its screen's surface: the form
 * posted with what the screen did not offer — a payment form the link's formaPago does not accept (2.1, 2.3), a
 * number of instalments above its cantidadMaximaCuotas (2.1), an edited quantity that is not a whole number (4.1:
 * the quantity is an int) — is refused and charges nothing. Each door is first shown to pay what the link allows
 * (the same forged post with an allowed value: else this payer cannot post it, and its refusals are not judged — an
 * approval of what the link forbids still is); then every forged post must end unapproved, its transaction (if it
 * names one) unapproved in the lookup, and the link record must list no approved payment beyond the control's; a
 * forged post refused with 410 (Gone) while the link can still be paid is observed. fast-check draws the instalment
 * counts and quantities at the edges, with the run's FC_SEED.
 */
import fc from 'fast-check';
import { describe } from 'vitest';
import { draw } from '../generators/free-content.ts';
import type { PaymentOutcome, TestHandle } from '../harness/index.ts';
import { approvalOf, asBool, asNumber, clauseTest, fail, field, holds, mapPage, unreadPage } from '../harness/index.ts';
import type { PaymentLinkCreateRequest } from '../spec/types.ts';
import { activate, createLink, idOf } from './flows/links.ts';
import { lookUp } from './flows/lookups.ts';
import { observedLinkBody, saidOrLookedUp, testCard } from './flows/screens.ts';

const RANDOM_SEED = (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
const seedOf = (t: TestHandle): number => t.run.config.fastCheck.seed ?? RANDOM_SEED;

const CARD_ONLY = {
  permitirTarjetaCreditoDebido: true as const,
  permitirPagoConPuntoPartner: false,
  permitirPagoEnCuotasPartner: false,
  permitirPagoEnBitcoin: false,
  permitePagoQuickPay: false,
};

type Forged = NonNullable<Extract<Parameters<TestHandle['run']['payer']['pay']>[0], { kind: 'opened-screen' }>['forged']>;

/** The link's screen opened and its form posted with `forged` set whether or not the screen offers it. */
async function post(t: TestHandle, urlEnlace: string, forged: Forged): Promise<PaymentOutcome> {
  const screen = await t.run.payer.openScreen(urlEnlace);
  if (!screen.form)
    return t.skip(
      'page-not-driven',
      `the link's screen (status ${screen.status}) shows no form to post: its settings are judged where it shows one`,
    );
  return t.run.payer.pay({ kind: 'opened-screen', screen, payment: await testCard(t), forged });
}

const describeOutcome = (o: PaymentOutcome): string =>
  o.kind === 'redirect' ? `a redirect with esAprobada=${approvalOf(o) ?? '(absent)'}` : `${o.kind} (status ${o.status})`;

/**
 * The door itself: the same post with a value the link allows is approved; else this payer cannot post the form
 * (field names, option values), or the target does not offer that value (4.11: which instalments a business lists
 * is not shown), and a refusal of what the link does not allow would say nothing. Returns why the refusals are not
 * judged (undefined: they are). An approval of what the link does not allow is judged either way: a door that pays a
 * posted value the link forbids has read it.
 */
async function control(t: TestHandle, urlEnlace: string, forged: Forged, what: string): Promise<string | undefined> {
  const outcome = await post(t, urlEnlace, forged);
  if (approvalOf(outcome) === 'true') return undefined;
  return (
    `${what} (${Object.entries(forged)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}), posted to the screen, ended in ${describeOutcome(outcome)}: the door does not pay what the link ` +
    'allows through this payer, so a refusal of what it does not allow would say nothing'
  );
}

/** After the forged posts (none approved): not judged when the control did not pay. */
function controlPaid(t: TestHandle, unpaid: string | undefined): void {
  if (unpaid !== undefined) t.skip('page-not-driven', unpaid);
}

/** A forged post was not approved, and the transaction it names (if any) is not approved in the lookup. */
async function refused(t: TestHandle, outcome: PaymentOutcome, clauses: string[], what: string): Promise<void> {
  if (approvalOf(outcome) === 'true') fail('charged-nothing', clauses, `${what} is refused and charges nothing`, describeOutcome(outcome));
  // 410 (Gone) is the answer of a link that can no longer be paid; this one still can (its control paid through the
  // same door just before). The status of a refusal is not shown (7): observed.
  if (outcome.kind === 'refused' && outcome.status === 410)
    t.observe(
      '7-error-format-not-shown',
      `${what} was refused with 410, the status of a payment that can no longer be made, though the link can still be paid`,
    );
  const id = idOf(outcome);
  if (!id) return;
  const { ex, tx } = await lookUp(t, id);
  holds(
    asBool(field(tx, 'esAprobada')) !== true,
    'charged-nothing',
    clauses,
    `${what} is refused and charges nothing: its transaction ${id} is not approved`,
    `the lookup says esAprobada ${JSON.stringify(field(tx, 'esAprobada'))}`,
    ex,
  );
}

/** The link record lists exactly `approved` approved payments (the controls'), and counts them so (2.1). */
async function onlyControlsCharged(t: TestHandle, idEnlace: number, approved: number, clauses: string[], what: string): Promise<void> {
  if (!t.run.target.account) return;
  const { ex, record } = await activate(t, idEnlace);
  const listed = (record.transacciones ?? []).filter((tx) => asBool(field(tx, 'esAprobada')) === true).length;
  holds(
    listed === approved && (record.cantidadPagosExitosos === undefined || asNumber(record.cantidadPagosExitosos) === approved),
    'charged-nothing',
    clauses,
    `the link record lists ${approved} approved payment(s), the control's: ${what} charged nothing`,
    `transacciones lists ${listed} approved; cantidadPagosExitosos ${JSON.stringify(record.cantidadPagosExitosos)}`,
    ex,
  );
}

async function linkOf(t: TestHandle, fields: Partial<PaymentLinkCreateRequest>, configuracion = {}) {
  const base = await observedLinkBody(t, fields);
  return (await createLink(t, { ...base, configuracion: { ...base.configuracion, ...configuracion } })).link;
}

describe("2.1 / 2.3 the link's formaPago, where the payment is posted", () => {
  const clauses = ['2.1-formapago-accepted'];
  clauseTest(
    { clauses, endpoint: 'flow', purchase: true },
    'a payment form the link does not accept (points, instalments), posted to its screen, is refused and charges nothing',
    async (t) => {
      const link = await linkOf(t, { formaPago: CARD_ONLY });
      const unpaid = await control(t, link.urlEnlace, { formaPago: '0' }, 'a card payment (formaPago 0, the one form the link accepts)');
      // Points (1) and instalments (2) are the forms a business commonly accepts that the link here does not.
      for (const forged of [{ formaPago: '1' }, { formaPago: '2', cuotas: '3' }] as Forged[]) {
        const what = `a payment with formaPago ${forged.formaPago} on a link accepting only cards`;
        await refused(t, await post(t, link.urlEnlace, forged), clauses, what);
      }
      controlPaid(t, unpaid);
      await onlyControlsCharged(t, link.idEnlace, 1, clauses, 'the payment forms it does not accept');
    },
  );
});

describe("2.1 / 2.3 the link's formaPago, where the screen offers it", () => {
  // A screen need not offer a choice of one; one offering more payment forms than the link accepts offers what the
  // link does not accept (2.1: formaPago, "accepted payment forms"): observed (options without a value are prompts).
  clauseTest(
    { clauses: '2.1-formapago-accepted', endpoint: 'flow' },
    'the screen of a link accepting only cards offers no other payment form',
    async (t) => {
      const link = await linkOf(t, { formaPago: CARD_ONLY });
      const screen = await t.run.payer.openScreen(link.urlEnlace);
      const name = mapPage(screen.html, t.run.config.screenFieldNames).names.formaPago;
      const offered = (screen.form?.selects[name] ?? []).filter((v) => v !== '');
      if (offered.length > 1)
        t.observe(
          '2.1-formapago-accepted',
          `the screen of a link accepting only cards offers ${offered.length} payment forms: ${offered.map((v) => JSON.stringify(v)).join(', ')}`,
        );
    },
  );
});

describe("2.1 the link's cantidadMaximaCuotas, where the payment is posted", () => {
  const clauses = ['2.1-cantidad-maxima-cuotas-bounds'];
  clauseTest(
    { clauses, endpoint: 'flow', purchase: true },
    'a number of instalments above the link\'s cantidadMaximaCuotas ("Tres"), posted to its screen, is refused and charges nothing',
    async (t) => {
      const link = await linkOf(t, { formaPago: { ...CARD_ONLY, permitirPagoEnCuotasPartner: true }, cantidadMaximaCuotas: 'Tres' });
      const unpaid = await control(
        t,
        link.urlEnlace,
        { formaPago: '2', cuotas: '3' },
        'a payment in 3 instalments (the maximum of the link)',
      );
      // Above 3, among the values 2.1 lists: the next one and the default plans (6, 12) always, two more drawn.
      const above = fc.constantFrom(4, 5, 6, 7, 8, 9, 10, 11, 12, 18, 24, 36);
      const seed = seedOf(t);
      const cuotas = [...new Set([4, 6, 12, ...draw(above, seed, 2)])];
      for (const n of cuotas) {
        const what = `a payment in ${n} instalments on a link of cantidadMaximaCuotas 3 (FC_SEED=${seed})`;
        await refused(t, await post(t, link.urlEnlace, { formaPago: '2', cuotas: String(n) }), clauses, what);
      }
      controlPaid(t, unpaid);
      await onlyControlsCharged(t, link.idEnlace, 1, clauses, `${cuotas.length} posts of more instalments than 3`);
    },
  );
});

describe('2.1 a payment in instalments posted without their number', () => {
  // The screen asks how many instalments (its select); a post of formaPago 2 (Cuotas) naming none chose no plan within
  // cantidadMaximaCuotas. The spec does not say how such a post is answered: one approved is observed.
  const clauses = ['2.1-cantidad-maxima-cuotas-bounds'];
  clauseTest(
    { clauses, endpoint: 'flow', purchase: true },
    'a payment in instalments (formaPago 2) posted to the screen with no number of instalments is not approved (observed)',
    async (t) => {
      const link = await linkOf(t, { formaPago: { ...CARD_ONLY, permitirPagoEnCuotasPartner: true }, cantidadMaximaCuotas: 'Tres' });
      const unpaid = await control(t, link.urlEnlace, { formaPago: '2', cuotas: '3' }, 'a payment in 3 instalments');
      const outcome = await post(t, link.urlEnlace, { formaPago: '2', cuotas: '' });
      controlPaid(t, unpaid);
      if (approvalOf(outcome) === 'true')
        t.observe(
          '2.1-cantidad-maxima-cuotas-bounds',
          'a payment in instalments (formaPago 2) posted with the number of instalments left empty was approved: no plan was chosen',
        );
    },
  );
});

describe("2.1 a number of instalments within the link's cantidadMaximaCuotas", () => {
  // Development authorizes every payment (7); which instalments a business lists is not shown (4.11), though 3 ("Tres")
  // is among a default account's (4.1): a payment in 3 instalments refused on a link allowing them is observed, once a
  // card payment through the same door shows this payer can pay the screen.
  clauseTest(
    { clauses: ['2.1-cantidad-maxima-cuotas-bounds', '7-dev-authorizes'], endpoint: 'flow', purchase: true },
    'a payment in 3 instalments, posted to the screen of a link allowing instalments up to "Tres", is approved in development',
    async (t) => {
      const link = await linkOf(t, { formaPago: { ...CARD_ONLY, permitirPagoEnCuotasPartner: true }, cantidadMaximaCuotas: 'Tres' });
      controlPaid(t, await control(t, link.urlEnlace, { formaPago: '0' }, 'a card payment (formaPago 0)'));
      const outcome = await post(t, link.urlEnlace, { formaPago: '2', cuotas: '3' });
      if (approvalOf(outcome) !== 'true')
        t.observe(
          '7-dev-authorizes',
          `a payment in 3 instalments (formaPago 2) on a link of cantidadMaximaCuotas "Tres" ended in ${describeOutcome(outcome)}, ` +
            'though a card payment through the same screen was approved',
        );
    },
  );
});

describe('4.1 an editable quantity is a whole number, where the payment is posted', () => {
  const clauses = ['4.1-cantidad-int', '4.1-cantidad-editable'];
  clauseTest(
    { clauses, endpoint: 'flow', purchase: true },
    'a quantity that is not a whole number, posted to the screen of a link with esCantidadEditable, is not charged as a fraction of a unit',
    async (t) => {
      const monto = 10;
      const link = await linkOf(t, { monto }, { esCantidadEditable: true, cantidadPorDefecto: 1 });
      const unpaid = await control(t, link.urlEnlace, { cantidad: '2' }, 'a payment of quantity 2');
      // Fractions at the edges (half a unit, a cent of one, just under one) and two drawn.
      const fraction = fc
        .integer({ min: 1, max: 999 })
        .filter((n) => n % 100 !== 0)
        .map((n) => String(n / 100));
      const seed = seedOf(t);
      const quantities = [...new Set(['0.5', '1.5', '0.01', ...draw(fraction, seed, 2)])];
      let approved = 1;
      for (const q of quantities) {
        const what = `a payment of quantity ${q} (FC_SEED=${seed})`;
        const outcome = await post(t, link.urlEnlace, { cantidad: q });
        if (approvalOf(outcome) !== 'true') {
          await refused(t, outcome, clauses, what);
          continue;
        }
        approved++;
        // Read as a whole quantity (rounded, cut) is a reading 4.1 does not forbid: observed. A fraction charged fails.
        const charged = asNumber(await saidOrLookedUp(t, outcome.kind === 'redirect' ? outcome.params : {}, 'monto'));
        const units = charged === undefined ? undefined : Math.round((charged / monto) * 1e6) / 1e6;
        if (units !== undefined && Number.isInteger(units) && units > 0) {
          t.observe('4.1-cantidad-int', `${what} was approved and charged ${charged} (${units} × ${monto}): read as a whole quantity`);
          continue;
        }
        fail(
          'charged-nothing',
          clauses,
          `${what} is refused, or charged a whole number of units (the quantity is an int)`,
          `approved and charged ${JSON.stringify(charged)}: ${units ?? '?'} × monto ${monto}`,
        );
      }
      controlPaid(t, unpaid);
      await onlyControlsCharged(t, link.idEnlace, approved, clauses, 'the quantities that are not whole numbers');
    },
  );
  // Hexadecimal text no number input sends: how a screen reads a posted field's text is not stated, so one that
  // takes "0x2" as the number 2 and charges it is observed, never failed. A browser's number input keeps no such
  // text (it posts the field empty), so the default quantity's charge through any payer but the HTTP one (which
  // posts the text as given) says nothing about how "0x2" is read: not judged.
  clauseTest(
    { clauses, endpoint: 'flow', purchase: true },
    'a quantity posted as hexadecimal text ("0x2") to the screen of a link with esCantidadEditable is refused (else its charge observed)',
    async (t) => {
      const monto = 10;
      const cantidadPorDefecto = 1;
      const link = await linkOf(t, { monto }, { esCantidadEditable: true, cantidadPorDefecto });
      const outcome = await post(t, link.urlEnlace, { cantidad: '0x2' });
      // Refused is what the title asks; a page left unread says nothing (not judged).
      unreadPage(outcome, 'a payment of quantity "0x2"');
      if (approvalOf(outcome) !== 'true') return;
      const charged = await saidOrLookedUp(t, outcome.kind === 'redirect' ? outcome.params : {}, 'monto');
      if (asNumber(charged) === monto * cantidadPorDefecto && t.run.config.payer.kind !== 'http')
        return t.skip(
          'nothing-to-judge',
          `a payment of quantity "0x2" was approved and charged ${JSON.stringify(charged)}, the default quantity's ` +
            `(${cantidadPorDefecto} × monto ${monto}): through PAYER=${t.run.config.payer.kind} the text need not reach the ` +
            'service as posted (a number input keeps none), so how the service reads it is not seen (nothing to judge); ' +
            'PAYER=http posts it as given',
        );
      t.observe(
        '4.1-cantidad-editable',
        `a payment of quantity "0x2" was approved and charged ${JSON.stringify(charged)} (monto ${monto})`,
      );
    },
  );
});

// The screen's address with another link's id in it (one no link has) is the service's to refuse as it likes (7: not
// shown); a server error is no answer to it: observed. A screen address that does not carry the id is not judged.
describe('7 the screen of no link', () => {
  clauseTest(
    { clauses: '7-error-format-not-shown', endpoint: 'flow' },
    "the screen's address with the id of no link answers no server error (5xx: observed)",
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { formaPago: CARD_ONLY }));
      const screen = await t.run.payer.openScreen(link.urlEnlace);
      const id = String(link.idEnlace);
      const at = screen.url.lastIndexOf(id);
      if (at < 0) return t.skip('nothing-to-judge', `the screen's address (${screen.url}) does not name the link's id`);
      const url = `${screen.url.slice(0, at)}${id}9999${screen.url.slice(at + id.length)}`;
      const ex = await t.run.http.request({ method: 'GET', url, notNow: 'answer', label: 'the screen of no link' });
      const status = ex.response?.status ?? 0;
      if (status >= 500)
        t.observe('7-error-format-not-shown', `the screen's address with the id of no link (${url}) was answered ${status}`);
    },
  );
});

// The screen's form posted to its action with another link's id in it (one no link has): the service's to refuse as it
// likes (7: not shown); a server error is no answer to it: observed. An action that does not carry the id is not judged.
describe('7 the screen form posted for no link', () => {
  clauseTest(
    // A payment form posted to the target: held by the interlock as any payment is.
    { clauses: '7-error-format-not-shown', endpoint: 'flow', purchase: true },
    "the screen's form posted to its action with the id of no link answers no server error (5xx: observed)",
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { formaPago: CARD_ONLY }));
      const screen = await t.run.payer.openScreen(link.urlEnlace);
      if (screen.form?.method !== 'POST')
        return t.skip('page-not-driven', `the link's screen (status ${screen.status}) shows no form posted as a body`);
      const id = String(link.idEnlace);
      const action = screen.form.action;
      const at = action.lastIndexOf(id);
      if (at < 0) return t.skip('nothing-to-judge', `the screen's form action (${action}) does not name the link's id`);
      const url = `${action.slice(0, at)}${id}9999${action.slice(at + id.length)}`;
      const ex = await t.run.http.request({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(screen.form.fields).toString(),
        notNow: 'answer',
        label: "the screen's form, posted for no link",
      });
      const status = ex.response?.status ?? 0;
      if (status >= 500)
        t.observe('7-error-format-not-shown', `the screen's form posted for the id of no link (${url}) was answered ${status}`);
    },
  );
});

// A form whose every field comes twice (as a forged or mangled post can send it) is the screen's to refuse as it
// likes (7: the refusal is not shown); a server error is no refusal of the input, so it is observed.
describe('7 the screen form posted with every field twice', () => {
  clauseTest(
    { clauses: '7-error-format-not-shown', endpoint: 'flow', purchase: true },
    "the link's screen form posted with each of its fields sent twice answers no server error (5xx: observed)",
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t, { formaPago: CARD_ONLY }));
      const screen = await t.run.payer.openScreen(link.urlEnlace);
      if (screen.form?.method !== 'POST')
        return t.skip('page-not-driven', `the link's screen (status ${screen.status}) shows no form posted as a body`);
      const twice = new URLSearchParams();
      for (const [name, value] of Object.entries(screen.form.fields)) twice.append(name, value);
      for (const [name, value] of Object.entries(screen.form.fields)) twice.append(name, value);
      const ex = await t.run.http.request({
        method: 'POST',
        url: screen.form.action,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: twice.toString(),
        notNow: 'answer',
        label: "the screen's form, each field twice",
      });
      const status = ex.response?.status ?? 0;
      if (status >= 500)
        t.observe('7-error-format-not-shown', `the screen's form posted with each field twice was answered ${status}, a server error`);
    },
  );
});

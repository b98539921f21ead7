/**
 * Spec 4, 7, 8 — the stated validation rules. For each rule of the catalogue in generators/requests.ts: its
 * canonical violating examples are rejected with a 4xx (7: "violations are rejected"; the status is not shown, so
 * any 4xx will do), and its canonical boundary examples are accepted and, where the response or the link record
 * shows the field, come back as sent; its near misses (inputs the spec leaves open, like monto "10.00") are only
 * observed. What the spec only describes (entries of kind description: 4.3's ISO codes, a card number without
 * spaces) is never failed: a target that takes a value not looking as described gets a WARN (docs/decisions.md,
 * "Severity"). Also: each required field of each request missing → rejected
 * (4.x-request-fields); bodies that are not a JSON object → rejected, never a 5xx (4: "Request bodies … are JSON");
 * a rejected request creates nothing (test-control stats). The same rules explored by fast-check: properties.test.ts.
 * Types no rule covers (a link's ints given 1.5, a dictionary's non-string values) and an emailsNotificacion not written
 * as comma-separated e-mails: observed when taken, never failed.
 */
import fc from 'fast-check';
import { describe } from 'vitest';
import {
  catalogue,
  onlyCoercibleTypes,
  REQUIRED_FIELDS,
  setAt,
  validBody,
  withUniqueRef,
  type Body,
  type RuleEntry,
} from '../generators/requests.ts';
import type { OperationId } from '../spec/types.ts';
import { acceptsValid, bodyContext, bodyTestSpec, echoedBack, rejectedWhereValidAccepted, sendBody } from './flows/bodies.ts';
import { activate } from './flows/links.ts';
import { paymentLinkMinimal, purchaseMposBanda, purchaseWallet } from '../generators/bodies.ts';
import { clauseTest, createdNothing, type Exchange, fieldEquals, readInt, succeeded, type TestHandle } from '../harness/index.ts';

// The catalogue built with the run's data, once per business id (titles are registered from the default one).
const built = new Map<string, RuleEntry[]>();

/** A canonical example of the catalogue, with the run's data, as sent (a link's identificador made unique). */
async function example(t: TestHandle, entry: RuleEntry, kind: 'violating' | 'boundary' | 'nearMiss', index: number): Promise<Body> {
  const ctx = await bodyContext(t, kind === 'boundary' && entry.rule === '4.7-idaplicativo-conditional');
  if (!built.has(ctx.idAplicativo)) built.set(ctx.idAplicativo, catalogue(ctx));
  const fresh = built.get(ctx.idAplicativo)!.find((e) => e.operationId === entry.operationId && e.rule === entry.rule)!;
  return withUniqueRef(fresh.canonical[kind]![index]!.body);
}

const status = (ex: Exchange) => ex.response?.status ?? 0;
const is2xx = (ex: Exchange) => status(ex) >= 200 && status(ex) < 300;

/**
 * "A rejected request creates nothing" judges only requests that were rejected: one that was accepted is the
 * finding of the rule's own testcase (one fault, one finding), and says nothing about what a rejection creates.
 */
function skipUnlessRejected(t: TestHandle, ex: Exchange, reportedBy: string): void {
  const s = status(ex);
  if (s < 400 || s > 499)
    t.skip(
      'premise-elsewhere',
      `the request was not rejected (${s || 'no answer'}): reported by ${reportedBy}; what a rejection creates is not observable here`,
    );
}
const entries = catalogue();
/** Stated rules (a target that breaks one FAILs) and descriptions (only observed). */
const rules = entries.filter((e) => e.kind === 'rule');
const descriptions = entries.filter((e) => e.kind === 'description');

// One testcase per rule (one fault, one finding): every canonical violation of the rule is sent, the first accepted
// one fails it. The rule's property (properties.test.ts) explores beyond these examples.
describe('stated rules: the canonical violations are rejected', () => {
  for (const entry of rules.filter((e) => e.canonical.violating.length > 0)) {
    const clauses = [entry.rule, '7-violations-rejected'];
    const labels = entry.canonical.violating.map((v) => v.label);
    clauseTest(
      bodyTestSpec(entry, clauses),
      `${entry.operationId}: ${labels.join('; ')} ${labels.length > 1 ? 'are each' : 'is'} rejected (${entry.statement})`,
      async (t) => {
        for (const [i, { label }] of entry.canonical.violating.entries()) {
          const body = await example(t, entry, 'violating', i);
          const ex = await sendBody(t, entry.operationId, body, entry.auth);
          if (tolerated(t, entry, body, ex, label)) continue;
          await rejectedWhereValidAccepted(t, ex, entry.operationId, clauses, `${entry.statement} (${label})`);
        }
        await observeNearMisses(t, entry);
      },
    );
  }
});

/**
 * A body breaking only a JSON type (section 7 lists no type rule) that was accepted: observed, not failed, naming
 * what was coerced (onlyCoercibleTypes). True when so.
 */
function tolerated(t: TestHandle, entry: RuleEntry, body: Body, ex: Exchange, label: string): boolean {
  const coerced = is2xx(ex) ? onlyCoercibleTypes(t.run.contract, entry.operationId as OperationId, body) : undefined;
  if (coerced !== undefined)
    t.observe(entry.rule, `${label} was accepted (${status(ex)}): ${coerced}; section 7 lists no type rule, and a lenient server coerces`);
  return coerced !== undefined;
}

/**
 * The rule's near misses (the catalogue's canonical.nearMiss: inputs next to the rule where the spec leaves the
 * verdict open, such as "10.00" for a number, which ASP.NET Core reads as 10): recorded when the target does not
 * refuse them with a 4xx, never failed. A literal reading refuses them.
 */
async function observeNearMisses(t: TestHandle, entry: RuleEntry): Promise<void> {
  const nearMisses = entry.canonical.nearMiss ?? [];
  for (const [i, { label }] of nearMisses.entries()) {
    const ex = await sendBody(t, entry.operationId, await example(t, entry, 'nearMiss', i), entry.auth);
    if (status(ex) < 400 || status(ex) > 499)
      t.observe(entry.rule, `${label} was answered ${status(ex) || 'with nothing'}, not refused with a 4xx`);
  }
}

// A description is not a rule: a target may take values that do not look as described (a region name, a card number
// with spaces). Each one it takes is recorded, never failed. Its boundary is the ordinary body the other 3DS tests send.
describe('described formats: a value that does not look as described is observed, never failed', () => {
  for (const entry of descriptions) {
    const labels = [...entry.canonical.violating, ...(entry.canonical.nearMiss ?? [])].map((v) => v.label);
    clauseTest(
      bodyTestSpec(entry, [entry.rule]),
      `${entry.operationId}: ${labels.join('; ')} — observed when taken (${entry.statement})`,
      async (t) => {
        for (const [i, { label }] of entry.canonical.violating.entries()) {
          const ex = await sendBody(t, entry.operationId, await example(t, entry, 'violating', i), entry.auth);
          if (status(ex) < 400 || status(ex) > 499)
            t.observe(entry.rule, `${label} was answered ${status(ex) || 'with nothing'}, not refused with a 4xx: ${entry.statement}`);
        }
        await observeNearMisses(t, entry);
      },
    );
  }
});

describe('stated rules: the boundary is accepted', () => {
  for (const entry of rules.filter((e) => e.canonical.boundary.length > 0)) {
    const labels = entry.canonical.boundary.map((b) => b.label);
    clauseTest(
      bodyTestSpec(entry, [entry.rule]),
      `${entry.operationId}: ${labels.join('; ')} ${labels.length > 1 ? 'are each' : 'is'} accepted`,
      async (t) => {
        for (const [i, { label }] of entry.canonical.boundary.entries()) {
          const body = await example(t, entry, 'boundary', i);
          const ex = await sendBody(t, entry.operationId, body, entry.auth);
          succeeded(ex, entry.rule, `${entry.operationId} with ${label}`);
          if (entry.echo?.in === 'response') await echoedBack(t, entry, body, ex, [entry.rule]);
          if (i === 0) await observeOverPrecision(t, entry, body);
        }
      },
    );
  }
});

/** Amounts with more than two decimals meet "at least 0.01" / "greater than 0"; a target may still refuse fractions of a cent. */
async function observeOverPrecision(t: TestHandle, entry: RuleEntry, body: Body): Promise<void> {
  const amounts: Partial<Record<string, number>> = { '4.1-monto-min': 0.011, '4.6-monto-positive': 0.001 };
  const monto = amounts[entry.rule];
  if (monto === undefined) return;
  const ex = await sendBody(t, entry.operationId, withUniqueRef(setAt(body, '/monto', monto)));
  if (status(ex) < 200 || status(ex) > 299)
    t.observe(entry.rule, `monto ${monto} (more than two decimals, yet within the rule) was answered ${status(ex) || 'with nothing'}`);
}

describe('stated rules: the boundary is stored as sent (link record, read through activar)', () => {
  for (const entry of rules.filter((e) => e.echo?.in === 'record' || e.rule === '4.1-cuotas-enum')) {
    const { label } = entry.canonical.boundary[0]!;
    const clauses = [entry.rule, '4.2-endpoint', '2.1-payment-link-types'];
    clauseTest(bodyTestSpec(entry, clauses, ['account']), `${entry.operationId}: ${label} comes back in the link record`, async (t) => {
      const body = await example(t, entry, 'boundary', 0);
      const ex = await sendBody(t, entry.operationId, body);
      // A refused boundary is the finding of the rule's own testcase ("… is accepted"); here nothing is stored to read.
      if (!is2xx(ex))
        return t.skip(
          'premise-elsewhere',
          `${label} was refused (${status(ex) || 'no answer'}): reported by the rule's "is accepted" testcase; nothing stored to compare`,
        );
      if (entry.echo) return echoedBack(t, entry, body, ex, clauses);
      // 2.1 gives the record's cantidadMaximaCuotas as the number of instalments; the request's "Tres" is three.
      const { ex: read, record } = await activate(t, readInt(ex.response?.json, 'idEnlace', '4.1-response-fields', ex));
      fieldEquals(record.cantidadMaximaCuotas, 3, 'cantidadMaximaCuotas', ['4.1-cuotas-enum', '2.1-cantidad-maxima-cuotas-values'], read);
    });
  }
});

describe('4.x required fields: a request without one is rejected', () => {
  for (const [operationId, fields] of Object.entries(REQUIRED_FIELDS)) {
    for (const { field, clause } of fields) {
      // a field whose requirement is a rule of the catalogue is judged once, by that rule's testcase above
      if (rules.some((e) => e.operationId === operationId && e.rule === clause && e.canonical.violating.length > 0)) continue;
      const clauses = [clause, '7-violations-rejected'];
      clauseTest(bodyTestSpec({ operationId }, clauses), `${operationId} without ${field.slice(1)} is rejected`, async (t) => {
        const [valid] = fc.sample(validBody(operationId as keyof typeof REQUIRED_FIELDS, await bodyContext(t)), { numRuns: 1, seed: 1 });
        await rejectedWhereValidAccepted(
          t,
          await sendBody(t, operationId, withUniqueRef(setAt(valid!, field, undefined))),
          operationId,
          clauses,
          `${field.slice(1)} is required`,
        );
      });
    }
  }
});

describe('4 request bodies are JSON', () => {
  const raw: [string, string, string][] = [
    ['a truncated JSON body', 'application/json', '{"identificadorEnlaceComercio": "conf-json", "monto": 10.5,'],
    ['an empty body declared as JSON', 'application/json', ''],
    ['a JSON array instead of an object', 'application/json', '[]'],
    ['a JSON string instead of an object', 'application/json', '"monto=10.5"'],
    // JSON null parses, so it reaches the field rules as no object at all.
    ['JSON null instead of an object', 'application/json', 'null'],
    ['a text/plain body that is not JSON', 'text/plain', 'identificadorEnlaceComercio=conf-json&monto=10.5&nombreProducto=x'],
  ];
  const clauses = ['4-json-bodies', '7-violations-rejected'];
  // One testcase per operation: every malformed body is sent, the first not rejected fails it.
  for (const operationId of ['createPaymentLink', 'purchaseQuickPay']) {
    clauseTest(
      bodyTestSpec({ operationId }, clauses),
      `${operationId} with ${raw.map(([what]) => what).join('; ')} is rejected each time (4xx, never 5xx)`,
      async (t) => {
        for (const [what, contentType, body] of raw) {
          const ex = await t.call(operationId, {
            body,
            headers: { 'content-type': contentType },
            auth: 'bearer',
            label: `${operationId} with ${what}`,
          });
          await rejectedWhereValidAccepted(t, ex, operationId, clauses, `a request body that is not a JSON object (${what})`);
        }
      },
    );
  }
});

// JSON exchanged between systems is UTF-8 (RFC 8259, 8.1): a body declared JSON whose bytes are not UTF-8 is not
// JSON. A reader that decodes leniently (a replacement character) and takes it is observed; a 5xx is never a refusal.
describe('4 request bodies are JSON: bytes that are not UTF-8', () => {
  const clauses = ['4-json-bodies', '7-violations-rejected'];
  for (const operationId of ['createPaymentLink', 'purchaseQuickPay'] as const) {
    clauseTest(
      bodyTestSpec({ operationId }, clauses),
      `${operationId} with a JSON body that is not UTF-8 (a Latin-1 "é") is rejected (4xx, never 5xx), or taken and observed`,
      async (t) => {
        const [valid] = fc.sample(validBody(operationId, await bodyContext(t)), { numRuns: 1, seed: 1 });
        const field = operationId === 'createPaymentLink' ? '/nombreProducto' : '/idExterno';
        // Every other character is ASCII, so the one byte 0xE9 is the body's only departure from UTF-8.
        const text = JSON.stringify(withUniqueRef(setAt(valid!, field, 'Caf\u00e9 conformidad')));
        const ex = await t.call(operationId, {
          body: Buffer.from(text, 'latin1'),
          headers: { 'content-type': 'application/json' },
          auth: 'bearer',
          label: `${operationId} with a body in Latin-1`,
        });
        if (is2xx(ex)) {
          t.observe('4-json-bodies', `a JSON body that is not UTF-8 (the byte 0xE9 of a Latin-1 "é") was accepted (${status(ex)})`);
          return;
        }
        await rejectedWhereValidAccepted(t, ex, operationId, clauses, 'a request body that is not JSON (its bytes are not UTF-8)');
      },
    );
  }
});

describe('7 a rejected request creates nothing', () => {
  const firstOfEach = [
    ...new Map(
      rules
        .filter((e) => e.canonical.violating.length > 0 && !e.auth)
        .reverse()
        .map((e) => [e.operationId, e]),
    ).values(),
  ];
  for (const entry of firstOfEach) {
    const clauses = [entry.rule, '7-violations-rejected'];
    clauseTest(
      bodyTestSpec(entry, clauses, ['stats']),
      `${entry.operationId}: ${entry.canonical.violating[0]!.label} creates no link and no transaction`,
      async (t) => {
        const body = await example(t, entry, 'violating', 0);
        await acceptsValid(t, entry.operationId);
        const before = await t.run.control!.stats();
        const ex = await sendBody(t, entry.operationId, body);
        skipUnlessRejected(t, ex, 'the rule\'s "is rejected" testcase');
        createdNothing(before, await t.run.control!.stats(), clauses, ex);
      },
    );
  }

  const walletClauses = ['4.4-request-fields', '7-violations-rejected'];
  clauseTest(
    bodyTestSpec({ operationId: 'purchaseWallet' }, walletClauses, ['stats']),
    'purchaseWallet without monto creates no transaction',
    async (t) => {
      const [valid] = fc.sample(validBody('purchaseWallet', await bodyContext(t)), { numRuns: 1, seed: 1 });
      await acceptsValid(t, 'purchaseWallet');
      const before = await t.run.control!.stats();
      const ex = await sendBody(t, 'purchaseWallet', setAt(valid!, '/monto', undefined));
      skipUnlessRejected(t, ex, '"purchaseWallet without monto is rejected"');
      createdNothing(before, await t.run.control!.stats(), walletClauses, ex);
    },
  );

  const jsonClauses = ['4-json-bodies', '7-violations-rejected'];
  clauseTest(
    bodyTestSpec({ operationId: 'createPaymentLink' }, jsonClauses, ['stats']),
    'createPaymentLink with a truncated JSON body creates no link',
    async (t) => {
      await acceptsValid(t, 'createPaymentLink');
      const before = await t.run.control!.stats();
      const ex = await t.call('createPaymentLink', { body: '{"monto": 10.5,', headers: { 'content-type': 'application/json' } });
      skipUnlessRejected(t, ex, '"createPaymentLink with a truncated JSON body is rejected"');
      createdNothing(before, await t.run.control!.stats(), jsonClauses, ex);
    },
  );
});

// Section 7 lists no type rule: a value of another JSON type than the one the spec gives, taken, is observed, never
// failed (docs/decisions.md, "Types in requests"). These are fields no rule of the catalogue covers — the ints of a
// link's settings and limits, the values of a dictionary — each sent in a request of its own, so each taken one is
// its own observation.
describe('2 types no rule covers: a value of another type, taken, is observed', () => {
  async function observeTaken(t: TestHandle, operationId: OperationId, body: Body, label: string, clause: string): Promise<void> {
    const ex = await sendBody(t, operationId, body);
    if (!is2xx(ex)) return;
    const coerced = onlyCoercibleTypes(t.run.contract, operationId, body) ?? 'a value of another type than the spec gives';
    t.observe(clause, `${label} was accepted (${status(ex)}): ${coerced}`);
  }

  const linkInts: [string, string, string][] = [
    ['/configuracion/cantidadPorDefecto', 'configuracion.cantidadPorDefecto', '2.5-configuracion-types'],
    ['/configuracion/duracionInterfazIntentoMinutos', 'configuracion.duracionInterfazIntentoMinutos', '2.5-configuracion-types'],
    ['/limitesDeUso/cantidadMaximaPagosExitosos', 'limitesDeUso.cantidadMaximaPagosExitosos', '2.1-payment-link-types'],
    ['/limitesDeUso/cantidadMaximaPagosFallidos', 'limitesDeUso.cantidadMaximaPagosFallidos', '2.1-payment-link-types'],
  ];
  clauseTest(
    bodyTestSpec({ operationId: 'createPaymentLink' }, ['2.5-configuracion-types', '2.1-payment-link-types']),
    `createPaymentLink: ${linkInts.map(([, name]) => name).join(', ')} (ints) each given 1.5 — observed when taken`,
    async (t) => {
      for (const [pointer, name, clause] of linkInts) {
        const body = setAt(paymentLinkMinimal() as unknown as Body, pointer, 1.5);
        await observeTaken(t, 'createPaymentLink', body, `${name} 1.5`, clause);
      }
    },
  );

  // 2.5 types these settings as bools: the text "true" or "false" is another type (no common JSON reader takes it).
  const linkBools: [string, string, string][] = [
    ['notificarTransaccionCliente', 'true', '4.1-notificar-required'],
    ['notificarTransaccionCliente', 'false', '4.1-notificar-required'],
    ['esMontoEditable', 'true', '2.5-configuracion-types'],
    ['esCantidadEditable', 'true', '2.5-configuracion-types'],
  ];
  clauseTest(
    bodyTestSpec({ operationId: 'createPaymentLink' }, ['2.5-configuracion-types', '4.1-notificar-required']),
    'createPaymentLink: configuracion.notificarTransaccionCliente, esMontoEditable, esCantidadEditable (bools) each given the text "true" or "false" — observed when taken',
    async (t) => {
      for (const [name, text, clause] of linkBools) {
        const body = setAt(paymentLinkMinimal() as unknown as Body, `/configuracion/${name}`, text);
        await observeTaken(t, 'createPaymentLink', body, `configuracion.${name} "${text}"`, clause);
      }
    },
  );

  // 4.7 types the card's expiry month and year as ints (the year's rule itself is not shown): one with a fraction.
  clauseTest(
    bodyTestSpec({ operationId: 'purchaseMposBanda' }, ['4.7-anio-rule-not-shown', '4.7-mes-range']),
    'purchaseMposBanda: anioVencimiento and mesVencimiento (ints) each given with a fraction — observed when taken',
    async (t) => {
      const valid = purchaseMposBanda(t.run.config.testData);
      const anio = valid.anioVencimiento + 0.5;
      await observeTaken(
        t,
        'purchaseMposBanda',
        { ...valid, anioVencimiento: anio } as unknown as Body,
        `anioVencimiento ${anio}`,
        '4.7-anio-rule-not-shown',
      );
      await observeTaken(
        t,
        'purchaseMposBanda',
        { ...valid, mesVencimiento: 1.5 } as unknown as Body,
        'mesVencimiento 1.5',
        '4.7-mes-range',
      );
    },
  );

  // 2: a dictionary maps string keys to string values. A number, a bool or an object as a value, or a list (or a
  // text) in the dictionary's place, is another type.
  const notDictionaries: [string, unknown][] = [
    ['datosAdicionales {"pedido": 17}', { pedido: 17 }],
    ['datosAdicionales {"regalo": true}', { regalo: true }],
    ['datosAdicionales {"cliente": {"id": "7"}}', { cliente: { id: '7' } }],
    ['datosAdicionales ["pedido", "17"] (a list)', ['pedido', '17']],
    ['datosAdicionales "pedido=17" (a text)', 'pedido=17'],
  ];
  clauseTest(
    bodyTestSpec({ operationId: 'purchaseWallet' }, ['2-dictionary-type']),
    `purchaseWallet: ${notDictionaries.map(([label]) => label).join('; ')} — observed when taken`,
    async (t) => {
      for (const [label, datosAdicionales] of notDictionaries) {
        const body = purchaseWallet(t.run.config.testData, { datosAdicionales: datosAdicionales as Record<string, string> });
        await observeTaken(t, 'purchaseWallet', body as unknown as Body, label, '2-dictionary-type');
      }
    },
  );
});

// 4.1 describes emailsNotificacion as comma-separated e-mails; what an address looks like is a description, so a list
// not written so, taken, is observed, never failed (docs/decisions.md, "Severity").
describe('4.1 emailsNotificacion not written as comma-separated e-mails is observed when taken', () => {
  const notLists: [string, string][] = [
    ['two addresses separated by a space', 'ventas@example.com soporte@example.com'],
    ['two addresses separated by a semicolon', 'ventas@example.com;soporte@example.com'],
    ['a word without @', 'ventas.example.com'],
  ];
  clauseTest(
    bodyTestSpec({ operationId: 'createPaymentLink' }, ['4.1-emails-comma-separated']),
    `createPaymentLink: emailsNotificacion of ${notLists.map(([what]) => what).join('; ')} — observed when taken`,
    async (t) => {
      for (const [what, emailsNotificacion] of notLists) {
        const ex = await sendBody(
          t,
          'createPaymentLink',
          paymentLinkMinimal({ configuracion: { notificarTransaccionCliente: false, emailsNotificacion } }),
        );
        if (is2xx(ex))
          t.observe(
            '4.1-emails-comma-separated',
            `emailsNotificacion "${emailsNotificacion}" (${what}) was accepted (${status(ex)}): 4.1 describes comma-separated e-mails`,
          );
      }
    },
  );
});

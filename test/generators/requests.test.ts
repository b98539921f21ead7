/**
 * The request arbitraries against the contract (spec/openapi.yaml): a "violates only rule X" body is reported by
 * contract.validateRequest with violations of clause X and nothing else; boundary and valid bodies pass it.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadContract, type Contract } from '../../harness/api/contract.ts';
import { loadClauses } from '../../spec/clauses.ts';
import {
  boundaryValid,
  catalogue,
  defaultContext,
  getAt,
  LINK_REF,
  onlyCoercibleTypes,
  REQUIRED_FIELDS,
  RULE_IDS,
  setAt,
  validBody,
  validProblem,
  violating,
  violatesOnly,
  withUniqueRef,
  type RuleEntry,
} from '../../generators/requests.ts';
import { characters } from '../../generators/strings.ts';

let contract: Contract;
beforeAll(async () => {
  contract = await loadContract();
});

const RUNS = { numRuns: 150, seed: 7 };
const entries = catalogue();

describe('the catalogue', () => {
  it('lists every rule once, each of the kind of its clause in spec/clauses.yaml (a rule, or a description)', async () => {
    const clauses = new Map((await loadClauses()).map((c) => [c.id, c]));
    expect(entries.map((e) => e.rule).sort()).toEqual([...RULE_IDS].sort());
    for (const e of entries) expect(clauses.get(e.rule)?.kind, e.rule).toBe(e.kind);
    // 4.3's ISO codes and card formats are descriptions (docs/decisions.md, "Severity"): observed, never failed
    expect(
      entries
        .filter((e) => e.kind === 'description')
        .map((e) => e.rule)
        .sort(),
    ).toEqual(['4.3-card-formats', '4.3-id-pais-iso', '4.3-id-region-iso']);
  });

  it('gives every restriction canonical violating and boundary examples, and 2.4 only a boundary', () => {
    for (const e of entries) {
      expect(e.canonical.boundary.length, e.rule).toBeGreaterThan(0);
      expect(e.canonical.violating.length > 0, e.rule).toBe(e.rule !== '2.4-descripcion-unbounded');
      expect(e.violating !== undefined, e.rule).toBe(e.rule !== '2.4-descripcion-unbounded');
    }
  });

  it('violating() and boundaryValid() find entries and refuse unknown pairs', () => {
    expect(violating('createPaymentLink', '4.1-monto-min')).toBeDefined();
    expect(boundaryValid('purchaseQuickPay', '4.6-idexterno-max-50')).toBeDefined();
    expect(() => violating('purchaseQuickPay', '4.1-monto-min')).toThrow(/no rule 4.1-monto-min for purchaseQuickPay/);
    expect(() => violating('createPaymentLink', '2.4-descripcion-unbounded')).toThrow(/freedom/);
  });
});

describe.each(entries.map((e) => [`${e.operationId} ${e.rule}`, e] as [string, RuleEntry]))('%s', (_name, entry) => {
  const violationsAtField = (body: unknown) =>
    contract.validateRequest(entry.operationId, body).every((v) => v.path.startsWith(entry.field));

  const violatingBodies = entry.violating;
  if (violatingBodies)
    it('every generated violating body breaks this rule and no other, at its field', () => {
      fc.assert(
        fc.property(violatingBodies, (body) => {
          expect(violatesOnly(contract, entry, body)).toBeUndefined();
          expect(violationsAtField(body)).toBe(true);
        }),
        RUNS,
      );
    });

  it('every generated boundary body is valid', () => {
    fc.assert(
      fc.property(entry.boundary, (body) => {
        expect(validProblem(contract, entry.operationId, body)).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('the canonical examples: violating ones break only this rule, boundary ones are valid', () => {
    for (const { label, body } of entry.canonical.violating) expect(violatesOnly(contract, entry, body), label).toBeUndefined();
    for (const { label, body } of entry.canonical.boundary) expect(validProblem(contract, entry.operationId, body), label).toBeUndefined();
  });

  it('the near misses differ from the violating example only at the rule field, with values of their own', () => {
    const [first] = entry.canonical.violating;
    const used = [...entry.canonical.violating, ...entry.canonical.boundary].map((e) => JSON.stringify(getAt(e.body, entry.field)));
    for (const { label, body } of entry.canonical.nearMiss ?? []) {
      expect(setAt(body, entry.field, getAt(first!.body, entry.field)), label).toEqual(first!.body);
      expect(used, label).not.toContain(JSON.stringify(getAt(body, entry.field)));
    }
  });
});

describe('values that a common server reads leniently are observed, never counted as violations', () => {
  const nearMissRules = entries.filter((e) => e.canonical.nearMiss).map((e) => e.rule);

  it('numeric strings and enum numbers have near-miss examples', () => {
    expect(nearMissRules).toEqual(
      expect.arrayContaining([
        '4.1-monto-min',
        '4.1-cuotas-enum',
        '4.3-card-fields',
        '4.6-monto-positive',
        '4.7-mes-range',
        '4.7-monto-positive',
      ]),
    );
  });

  it('no generated violating body carries a numeric string or a number for cantidadMaximaCuotas', () => {
    const numericString = (v: unknown) => typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v));
    const at: Partial<Record<string, string>> = {
      '4.1-monto-min': '/monto',
      '4.6-monto-positive': '/monto',
      '4.7-monto-positive': '/monto',
      '4.7-mes-range': '/mesVencimiento',
      '4.3-card-fields': '/tarjetaCreditoDebido/mesVencimiento',
      '4.1-cuotas-enum': '/cantidadMaximaCuotas',
    };
    for (const e of entries.filter((x) => at[x.rule])) {
      const values = [...e.canonical.violating.map((x) => x.body), ...fc.sample(e.violating!, { numRuns: 300, seed: 8 })].map((b) =>
        getAt(b, at[e.rule]!),
      );
      for (const v of values)
        expect(numericString(v) || (e.rule === '4.1-cuotas-enum' && typeof v === 'number'), `${e.rule} ${JSON.stringify(v)}`).toBe(false);
    }
  });

  it('link and 3DS bodies expected to be accepted allow card payment and use SV / SV-SS', () => {
    for (const e of entries.filter((x) => x.operationId === 'createPaymentLink' || x.operationId === 'purchase3ds')) {
      const bodies = [...e.canonical.boundary.map((x) => x.body), ...fc.sample(e.boundary, { numRuns: 100, seed: 9 })];
      for (const b of bodies) {
        const formaPago = getAt(b, '/formaPago') as Record<string, boolean> | undefined;
        if (formaPago) expect(formaPago['permitirTarjetaCreditoDebido'], e.rule).toBe(true);
        if (e.operationId === 'purchase3ds') expect([b['idPais'], b['idRegion']], e.rule).toEqual(['SV', 'SV-SS']);
      }
    }
  });
});

describe('violatesOnly', () => {
  const monto = entries.find((e) => e.rule === '4.1-monto-min')!;
  const idAplicativo = entries.find((e) => e.rule === '4.7-idaplicativo-conditional')!;
  const [valid] = fc.sample(validBody('createPaymentLink'), { numRuns: 1, seed: 1 });

  it('refuses a valid body and a body that also breaks another rule', () => {
    expect(violatesOnly(contract, monto, valid)).toMatch(/no violation/);
    const twoRules = setAt(setAt(valid!, '/monto', 0), '/cantidadMaximaCuotas', 'Quince');
    expect(violatesOnly(contract, monto, twoRules)).toMatch(/also breaks: \/cantidadMaximaCuotas/);
  });

  it('for a rule the body cannot show (4.7 idAplicativo), wants a valid body without the field', () => {
    const [mpos] = fc.sample(validBody('purchaseMposBanda'), { numRuns: 1, seed: 2 });
    expect(violatesOnly(contract, idAplicativo, mpos)).toBeUndefined();
    expect(violatesOnly(contract, idAplicativo, setAt(mpos!, '/idAplicativo', 'app-dev-1'))).toMatch(/present/);
    expect(violatesOnly(contract, idAplicativo, setAt(mpos!, '/monto', 0))).toMatch(/other rules/);
  });
});

describe('onlyCoercibleTypes: a body breaking only JSON types (section 7 lists none) is observed when accepted', () => {
  const sample = (op: Parameters<typeof validBody>[0], seed: number) =>
    fc.sample(validBody(op), { numRuns: 1, seed })[0] as Record<string, unknown>;
  const threeDs = () => sample('purchase3ds', 3);
  const card = (body: Record<string, unknown>, patch: Record<string, unknown>) => ({
    ...body,
    tarjetaCreditoDebido: { ...(body['tarjetaCreditoDebido'] as object), ...patch },
  });

  it('a number for a string and a numeric string for an int are read as each other', () => {
    expect(onlyCoercibleTypes(contract, 'purchase3ds', card(threeDs(), { cvv: 123 }))).toMatch(
      /cvv: a JSON number where the spec types a string/,
    );
    expect(onlyCoercibleTypes(contract, 'purchase3ds', card(threeDs(), { mesVencimiento: '05' }))).toMatch(
      /a numeric string where the spec types a number/,
    );
  });

  it('other types (true, 1.5, "") are left as sent and named, where no rule of section 7 judges the field', () => {
    for (const mes of [true, 1.5, ''])
      expect(onlyCoercibleTypes(contract, 'purchase3ds', card(threeDs(), { mesVencimiento: mes }))).toMatch(
        /mesVencimiento: .* a type no rule of section 7 covers/,
      );
  });

  it('is undefined for a valid body, a body breaking a rule besides its types, and a field section 7 judges (MPOS month, monto)', () => {
    expect(onlyCoercibleTypes(contract, 'purchase3ds', threeDs())).toBeUndefined();
    expect(onlyCoercibleTypes(contract, 'purchase3ds', card(threeDs(), { cvv: 123, mesVencimiento: undefined }))).toBeUndefined();
    const mpos = sample('purchaseMposBanda', 2);
    expect(onlyCoercibleTypes(contract, 'purchaseMposBanda', { ...mpos, mesVencimiento: true })).toBeUndefined();
    expect(onlyCoercibleTypes(contract, 'purchaseMposBanda', { ...mpos, mesVencimiento: '13' })).toBeUndefined();
    expect(onlyCoercibleTypes(contract, 'createPaymentLink', { ...sample('createPaymentLink', 1), monto: 'diez' })).toBeUndefined();
  });
});

describe('valid bodies', () => {
  it.each(Object.keys(REQUIRED_FIELDS))('validBody(%s) passes the contract', (operationId) => {
    fc.assert(
      fc.property(validBody(operationId as keyof typeof REQUIRED_FIELDS), (body) => {
        expect(validProblem(contract, operationId as never, body)).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('link bodies carry LINK_REF, the identificador a suite replaces by a unique one', () => {
    for (const body of fc.sample(validBody('createPaymentLink'), { numRuns: 20, seed: 3 }))
      expect(body['identificadorEnlaceComercio']).toBe(LINK_REF);
  });

  it('withUniqueRef makes each link identifier unique and keeps its length in characters', () => {
    const [long] = fc.sample(boundaryValid('createPaymentLink', '4.1-identificador-max-500'), { numRuns: 1, seed: 6 });
    const [tooLong] = fc.sample(violating('createPaymentLink', '4.1-identificador-max-500'), { numRuns: 1, seed: 6 });
    const [plain] = fc.sample(validBody('createPaymentLink'), { numRuns: 1, seed: 6 });
    const ids = [1, 2, 3].map(() => withUniqueRef(plain!)['identificadorEnlaceComercio']);
    expect(new Set(ids).size).toBe(3);
    for (const body of [long!, tooLong!]) {
      const sent = withUniqueRef(body);
      expect(characters(String(sent['identificadorEnlaceComercio']))).toBe(characters(String(body['identificadorEnlaceComercio'])));
      expect(sent['identificadorEnlaceComercio']).not.toBe(body['identificadorEnlaceComercio']);
    }
    expect(validProblem(contract, 'createPaymentLink', withUniqueRef(long!))).toBeUndefined();
    expect(violatesOnly(contract, entries.find((e) => e.rule === '4.1-identificador-max-500')!, withUniqueRef(tooLong!))).toBeUndefined();
    const quickPay = { monto: 1 };
    expect(withUniqueRef(quickPay)).toBe(quickPay);
  });

  it('the same seed makes the same bodies (replays reproduce counterexamples)', () => {
    const a = fc.sample(violating('createPaymentLink', '4.1-monto-min'), { numRuns: 20, seed: 99 });
    const b = fc.sample(violating('createPaymentLink', '4.1-monto-min'), { numRuns: 20, seed: 99 });
    expect(a).toEqual(b);
  });

  it('the MPOS bodies carry the context data: idAplicativo for the account, a card of TEST_CARD_NUMBER', () => {
    const ctx = { ...defaultContext, idAplicativo: 'app-otro', testData: { ...defaultContext.testData, cardNumber: '5555555555554444' } };
    const [body] = fc.sample(boundaryValid('purchaseMposBanda', '4.7-idaplicativo-conditional', ctx), { numRuns: 1, seed: 4 });
    expect(body).toMatchObject({ idAplicativo: 'app-otro', numeroTarjeta: '5555555555554444' });
  });
});

describe('required fields (4.x-request-fields)', () => {
  const cases = Object.entries(REQUIRED_FIELDS).flatMap(([operationId, fields]) =>
    fields.map((f) => [operationId, f.field, f.clause] as const),
  );

  it.each(cases)('%s without %s breaks clause %s, as a missing field', (operationId, field, clause) => {
    const [body] = fc.sample(validBody(operationId as keyof typeof REQUIRED_FIELDS), { numRuns: 1, seed: 5 });
    const without = setAt(body!, field, undefined);
    expect(getAt(without, field)).toBeUndefined();
    const violations = contract.validateRequest(operationId, without);
    expect(violations).toEqual([expect.objectContaining({ path: field, keyword: 'required', clause: expect.arrayContaining([clause]) })]);
  });
});

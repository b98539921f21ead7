import { beforeAll, describe, expect, it } from 'vitest';
import { createContract, loadContract, NULLABLE_OMITTED, type Contract, type Violation } from '../../harness/api/contract.ts';
import { loadClauses } from '../../spec/clauses.ts';

let contract: Contract;
beforeAll(async () => {
  contract = await loadContract();
});

type Obj = Record<string, unknown>;
const clone = <T>(value: T): T => structuredClone(value);

/** The `valid` example of an operation's request body or 2XX response, as written in spec/openapi.yaml. */
function example(operationId: string, part: 'request' | 'response'): Obj {
  for (const item of Object.values(contract.document.paths ?? {}) as Obj[]) {
    for (const op of Object.values(item) as Obj[]) {
      if (op.operationId !== operationId) continue;
      const holder = (part === 'request' ? op.requestBody : (op.responses as Obj)['2XX']) as { content: Record<string, Obj> };
      const media = Object.values(holder.content)[0] as { examples: { valid: { value: Obj } } };
      return clone(media.examples.valid.value);
    }
  }
  throw new Error(`no ${part} example for ${operationId}`);
}

const webhookExample = (): Obj => {
  const post = (contract.document as unknown as { webhooks: { transactionSucceeded: { post: Obj } } }).webhooks.transactionSucceeded.post;
  return clone(
    (post.requestBody as { content: { 'application/json': { examples: { valid: { value: Obj } } } } }).content['application/json'].examples
      .valid.value,
  );
};

const OPERATIONS = [
  'createPaymentLink',
  'activatePaymentLink',
  'purchase3ds',
  'purchaseWallet',
  'purchasePagoQr',
  'purchaseQuickPay',
  'purchaseMposBanda',
  'getTransaction',
  'deleteAccount',
  'issueToken',
] as const;
const WITH_BODY = OPERATIONS.filter((id) => !['activatePaymentLink', 'getTransaction', 'deleteAccount'].includes(id));

/** The single violation of a body that breaks exactly one thing. */
function only(violations: Violation[]): Violation {
  expect(violations).toHaveLength(1);
  return violations[0]!;
}

describe('operations', () => {
  it('lists exactly the operation ids of docs/decisions.md, with method, path, server and auth of spec 5.5', () => {
    expect(Object.keys(contract.operations).sort()).toEqual([...OPERATIONS].sort());
    expect(contract.operations.createPaymentLink).toMatchObject({
      method: 'POST',
      path: '/EnlacePago',
      server: 'base',
      security: [['bearer']],
    });
    expect(contract.operations.activatePaymentLink).toMatchObject({
      method: 'PUT',
      path: '/EnlacePago/{id}/activar',
      security: [['account']],
    });
    expect(contract.operations.purchaseQuickPay.security).toEqual([['account'], ['bearer']]);
    expect(contract.operations.getTransaction).toMatchObject({ method: 'GET', path: '/TransaccionCompra/{id}' });
    expect(contract.operations.deleteAccount).toMatchObject({ method: 'DELETE', path: '/Cuenta', security: [['account']] });
    expect(contract.operations.issueToken).toMatchObject({ method: 'POST', path: '/connect/token', server: 'auth', security: [] });
    expect(contract.operations.purchaseMposBanda.clauses).toContain('4.7-permission-required');
  });

  it('is compiled once per process', async () => {
    expect(await loadContract()).toBe(contract);
  });

  it('refuses an unknown operation id, naming the known ones', () => {
    expect(() => contract.validateResponse('createLink', 200, {})).toThrow(/unknown operationId "createLink".*createPaymentLink/);
  });
});

describe('the valid examples of spec/openapi.yaml', () => {
  it.each(OPERATIONS)('%s: its 2XX response example conforms', (operationId) => {
    expect(contract.validateResponse(operationId, 200, example(operationId, 'response'))).toEqual([]);
  });

  it.each(WITH_BODY)('%s: its request example conforms', (operationId) => {
    expect(contract.validateRequest(operationId, example(operationId, 'request'))).toEqual([]);
  });

  it('the webhook example conforms', () => {
    expect(contract.validateWebhook(webhookExample())).toEqual([]);
  });

  it('an empty body fails each of them (so the passes above mean something)', () => {
    for (const operationId of OPERATIONS) expect(contract.validateResponse(operationId, 200, {}).length).toBeGreaterThan(0);
    for (const operationId of WITH_BODY) expect(contract.validateRequest(operationId, {}).length).toBeGreaterThan(0);
    expect(contract.validateWebhook({}).length).toBeGreaterThan(0);
  });
});

describe('responses: what breaks the contract, where, and which clause', () => {
  const cases: { name: string; operationId: string; mutate: (body: Obj) => void; path: string; keyword: string; clause: string }[] = [
    {
      name: 'missing urlEnlace',
      operationId: 'createPaymentLink',
      mutate: (b) => delete b.urlEnlace,
      path: '/urlEnlace',
      keyword: 'required',
      clause: '4.1-response-fields',
    },
    {
      name: 'idEnlace as a string',
      operationId: 'createPaymentLink',
      mutate: (b) => (b.idEnlace = '7'),
      path: '/idEnlace',
      keyword: 'type',
      clause: '4.1-response-fields',
    },
    {
      name: 'idEnlace not an integer',
      operationId: 'createPaymentLink',
      mutate: (b) => (b.idEnlace = 7.5),
      path: '/idEnlace',
      keyword: 'type',
      clause: '4.1-response-fields',
    },
    {
      name: 'estaProductivo as 1',
      operationId: 'createPaymentLink',
      mutate: (b) => (b.estaProductivo = 1),
      path: '/estaProductivo',
      keyword: 'type',
      clause: '4.1-response-fields',
    },
    {
      name: 'monto as "10.00"',
      operationId: 'purchase3ds',
      mutate: (b) => (b.monto = '10.00'),
      path: '/monto',
      keyword: 'type',
      clause: '4.3-response-fields',
    },
    {
      name: 'a relative urlCompletarPago3Ds',
      operationId: 'purchase3ds',
      mutate: (b) => (b.urlCompletarPago3Ds = '/3ds/abc'),
      path: '/urlCompletarPago3Ds',
      keyword: 'format',
      clause: '4.3-url-completar',
    },
    {
      name: 'urlEnlace not a URL (described: observed)',
      operationId: 'createPaymentLink',
      mutate: (b) => (b.urlEnlace = 'enlace 7'),
      path: '/urlEnlace',
      keyword: 'format',
      clause: '2.1-link-urls',
    },
    {
      name: 'urlEnlace a number (a type: failed)',
      operationId: 'createPaymentLink',
      mutate: (b) => (b.urlEnlace = 7),
      path: '/urlEnlace',
      keyword: 'type',
      clause: '4.1-response-fields',
    },
    {
      name: 'an empty urlRetorno in the link record (described: observed)',
      operationId: 'activatePaymentLink',
      mutate: (b) => ((b.configuracion as Obj).urlRetorno = ''),
      path: '/configuracion/urlRetorno',
      keyword: 'format',
      clause: '2.5-configuracion-urls',
    },
    {
      name: 'emailLogin not an e-mail (described: observed)',
      operationId: 'deleteAccount',
      mutate: (b) => (b.emailLogin = 'merchant'),
      path: '/emailLogin',
      keyword: 'format',
      clause: '2.6-email-login',
    },
    {
      name: 'esReal as 1',
      operationId: 'getTransaction',
      mutate: (b) => (b.esReal = 1),
      path: '/esReal',
      keyword: 'type',
      clause: '2.2-transaction-types',
    },
    {
      name: 'formaPago 7',
      operationId: 'getTransaction',
      mutate: (b) => (b.formaPago = 7),
      path: '/formaPago',
      keyword: 'enum',
      clause: '2.2-formapago-values',
    },
    {
      name: 'resultadoTransaccion 3',
      operationId: 'getTransaction',
      mutate: (b) => (b.resultadoTransaccion = 3),
      path: '/resultadoTransaccion',
      keyword: 'enum',
      clause: '2.2-resultado-values',
    },
    {
      name: 'fechaTransaccion without an offset',
      operationId: 'getTransaction',
      mutate: (b) => (b.fechaTransaccion = '2026-03-01T10:00:00'),
      path: '/fechaTransaccion',
      keyword: 'format',
      clause: '2.2-transaction-types',
    },
    {
      name: 'fechaTransaccion not a date',
      operationId: 'getTransaction',
      mutate: (b) => (b.fechaTransaccion = 'ayer'),
      path: '/fechaTransaccion',
      keyword: 'format',
      clause: '2.2-transaction-types',
    },
    {
      name: 'datosBitcoin without qrData',
      operationId: 'getTransaction',
      mutate: (b) => delete (b.datosBitcoin as Obj).qrData,
      path: '/datosBitcoin/qrData',
      keyword: 'required',
      clause: '4.8-datos-bitcoin',
    },
    {
      name: 'a dictionary with a number value',
      operationId: 'getTransaction',
      mutate: (b) => (b.datosAdicionales = { pedido: 1001 }),
      path: '/datosAdicionales/pedido',
      keyword: 'type',
      clause: '2-dictionary-type',
    },
    {
      name: 'tipoTransaccion 6',
      operationId: 'purchaseMposBanda',
      mutate: (b) => (b.tipoTransaccion = 6),
      path: '/tipoTransaccion',
      keyword: 'enum',
      clause: '4.7-tipo-transaccion',
    },
    {
      name: 'quick-pay fechaVencimiento not a date-time',
      operationId: 'purchaseQuickPay',
      mutate: (b) => ((b.datosQuickPay as Obj).fechaVencimiento = '10 minutes'),
      path: '/datosQuickPay/fechaVencimiento',
      keyword: 'format',
      clause: '4.6-response-fields',
    },
    {
      name: 'a transaction of the link with monto "10.50"',
      operationId: 'activatePaymentLink',
      mutate: (b) => ((b.transacciones as Obj[])[1]!.monto = '10.50'),
      path: '/transacciones/1/monto',
      keyword: 'type',
      clause: '2.2-transaction-types',
    },
    {
      name: 'transaccionCompra.esAprobada as "true"',
      operationId: 'activatePaymentLink',
      mutate: (b) => ((b.transaccionCompra as Obj).esAprobada = 'true'),
      path: '/transaccionCompra/esAprobada',
      keyword: 'type',
      clause: '2.2-transaction-types',
    },
    {
      name: 'transaccionCompra as a string',
      operationId: 'activatePaymentLink',
      mutate: (b) => (b.transaccionCompra = 'none'),
      path: '/transaccionCompra',
      keyword: 'type',
      clause: '2.1-transaccion-compra-last-success',
    },
    {
      name: 'cantidadMaximaCuotas 13',
      operationId: 'activatePaymentLink',
      mutate: (b) => (b.cantidadMaximaCuotas = 13),
      path: '/cantidadMaximaCuotas',
      keyword: 'enum',
      clause: '2.1-cantidad-maxima-cuotas-values',
    },
    {
      name: 'usable missing',
      operationId: 'activatePaymentLink',
      mutate: (b) => delete b.usable,
      path: '/usable',
      keyword: 'required',
      clause: '2.1-payment-link-types',
    },
    {
      name: 'a formaPago flag missing',
      operationId: 'activatePaymentLink',
      mutate: (b) => delete (b.formaPago as Obj).permitePagoQuickPay,
      path: '/formaPago/permitePagoQuickPay',
      keyword: 'required',
      clause: '2.3-formapago-fields',
    },
    {
      name: 'a business without estaProductivo',
      operationId: 'deleteAccount',
      mutate: (b) => delete (b.aplicativos as Obj[])[0]!.estaProductivo,
      path: '/aplicativos/0/estaProductivo',
      keyword: 'required',
      clause: '2.7-business-types',
    },
    {
      name: 'fechaRegistro not a date-time',
      operationId: 'deleteAccount',
      mutate: (b) => (b.fechaRegistro = '2025-06-01'),
      path: '/fechaRegistro',
      keyword: 'format',
      clause: '2.6-account-types',
    },
    {
      name: 'expires_in as "3600"',
      operationId: 'issueToken',
      mutate: (b) => (b.expires_in = '3600'),
      path: '/expires_in',
      keyword: 'type',
      clause: '5.2-token-response',
    },
    {
      name: 'token_type "mac"',
      operationId: 'issueToken',
      mutate: (b) => (b.token_type = 'mac'),
      path: '/token_type',
      keyword: 'pattern',
      clause: '5.2-token-response',
    },
  ];

  it.each(cases)('$operationId: $name → $path ($keyword, $clause)', ({ operationId, mutate, path, keyword, clause }) => {
    const body = example(operationId, 'response');
    mutate(body);
    const violation = only(contract.validateResponse(operationId, 200, body));
    expect(violation).toMatchObject({ path, keyword });
    expect(violation.clause).toContain(clause);
    // severity follows the clause kind: a format the spec only describes is observed, everything else fails
    expect(violation.severity, clause).toBe(
      ['description', 'observation'].includes(loadClauses().find((c) => c.id === clause)!.kind) ? 'observe' : 'fail',
    );
  });

  it('reports every violation of a body at once, each with a clause of clauses.yaml', () => {
    const body = example('getTransaction', 'response');
    Object.assign(body, { esReal: 1, formaPago: 7, monto: '10.00', fechaTransaccion: 'ayer' });
    delete body.idTransaccion;
    const violations = contract.validateResponse('getTransaction', 201, body);
    expect(violations.map((v) => v.path).sort()).toEqual(['/esReal', '/fechaTransaccion', '/formaPago', '/idTransaccion', '/monto']);
    const ids = new Set(loadClauses().map((c) => c.id));
    for (const v of violations) for (const id of v.clause) expect(ids).toContain(id);
  });

  it('never quotes a string value in a message (responses carry secrets)', () => {
    const body = example('deleteAccount', 'response');
    (body.aplicativos as Obj[])[0]!.estaProductivo = 'sk-very-secret-value';
    const [violation] = contract.validateResponse('deleteAccount', 200, body);
    expect(violation?.message).toBe('must be boolean (got a string of 20 characters)');
  });

  it('accepts fields the spec does not list (responses may carry more)', () => {
    const body = { ...example('createPaymentLink', 'response'), urlEnlaceLargo: 'https://pay.example/pagar/7', extra: { any: [1] } };
    expect(contract.validateResponse('createPaymentLink', 200, body)).toEqual([]);
  });

  it('accepts any body for a non-2xx status: error format and codes are not shown (spec 7)', () => {
    for (const status of [400, 401, 403, 404, 409, 500, 302]) {
      expect(contract.validateResponse('createPaymentLink', status, { errores: 'anything' })).toEqual([]);
      expect(contract.validateResponse('getTransaction', status, undefined)).toEqual([]);
    }
  });

  it('validates every 2xx status against the success schema (the status code is not shown)', () => {
    for (const status of [200, 201, 202]) expect(contract.validateResponse('createPaymentLink', status, {}).length).toBe(4);
  });
});

describe('responses: conditional fields may be null or absent; nullable ones null, or observed when left out', () => {
  const conditional: [string, string[]][] = [
    ['getTransaction', ['codigoAutorizacion', 'mensaje', 'idExterno', 'datosAdicionales', 'datosBitcoin']],
    ['purchaseWallet', ['mensaje', 'idExterno', 'datosAdicionales', 'resultadoTransaccion']],
    ['purchaseQuickPay', ['codigoAutorizacion', 'mensaje', 'idExterno']],
    ['purchaseMposBanda', ['codigoAutorizacion', 'mensaje']],
    ['purchasePagoQr', ['razonSocial']],
    [
      'activatePaymentLink',
      [
        'transaccionCompra',
        'infoProducto',
        'cantidadMaximaCuotas',
        'imagenes',
        'vigencia',
        'limitesDeUso',
        'datosAdicionales',
        'idGrupoTarjetas',
      ],
    ],
  ];
  /** The operation's example response with `field` set to null, and without it. */
  const nullAndAbsent = (operationId: string, field: string) => {
    const asNull = example(operationId, 'response');
    asNull[field] = null;
    const absent = example(operationId, 'response');
    delete absent[field];
    return { asNull: contract.validateResponse(operationId, 200, asNull), absent: contract.validateResponse(operationId, 200, absent) };
  };
  it.each(conditional)('%s: %j', (operationId, fields) => {
    for (const field of fields) {
      const { asNull, absent } = nullAndAbsent(operationId, field);
      expect(asNull, `${field}: null`).toEqual([]);
      expect(absent, `${field}: absent`).toEqual([]);
    }
  });

  // docs/decisions.md "Null and absent": a field the spec types nullable may be null; left out, it is observed (the
  // spec does not say a null is written out), never failed.
  const nullable: [string, string[]][] = [
    ['getTransaction', ['montoOriginal', 'resultadoTransaccion']],
    ['purchaseQuickPay', ['formaPago']],
    ['purchaseMposBanda', ['fechaTransaccion']],
    ['deleteAccount', ['nit', 'razonSocial']],
  ];
  it.each(nullable)('%s: nullable %j may be null; left out, observed under 2-nullable-omitted', (operationId, fields) => {
    for (const field of fields) {
      const { asNull, absent } = nullAndAbsent(operationId, field);
      expect(asNull, `${field}: null`).toEqual([]);
      expect(absent, `${field}: absent`).toEqual([
        {
          path: `/${field}`,
          message: 'left out: a nullable field, read as null',
          keyword: 'required',
          clause: [NULLABLE_OMITTED],
          severity: 'observe',
        },
      ]);
    }
  });

  it("2-nullable-omitted is a description clause quoting the spec's nullable types", () => {
    expect(loadClauses().find((c) => c.id === NULLABLE_OMITTED)).toMatchObject({
      section: '2',
      kind: 'description',
      text: expect.stringContaining('decimal (nullable)'),
    });
  });

  it('every nullable field a body leaves out, nested ones too, is one observation', () => {
    const tx = example('getTransaction', 'response');
    delete tx.montoOriginal;
    delete tx.resultadoTransaccion;
    expect(only(contract.validateResponse('getTransaction', 200, tx))).toEqual({
      path: '/montoOriginal',
      message: 'left out: a nullable field, read as null (2 in this body: /montoOriginal, /resultadoTransaccion)',
      keyword: 'required',
      clause: [NULLABLE_OMITTED],
      severity: 'observe',
    });
    const account = example('deleteAccount', 'response');
    delete account.nit;
    const aplicativos = account.aplicativos as Obj[];
    aplicativos.push(clone(aplicativos[0]!));
    for (const aplicativo of aplicativos) delete aplicativo.tapOnPhone;
    expect(only(contract.validateResponse('deleteAccount', 200, account))).toMatchObject({
      path: '/nit',
      message: 'left out: a nullable field, read as null (3 in this body: /nit, /aplicativos/*/tapOnPhone)',
      severity: 'observe',
    });
    const link = example('activatePaymentLink', 'response');
    for (const t of link.transacciones as Obj[]) delete t.resultadoTransaccion;
    delete (link.transaccionCompra as Obj).montoOriginal;
    expect(only(contract.validateResponse('activatePaymentLink', 200, link))).toMatchObject({
      path: '/transaccionCompra/montoOriginal',
      clause: [NULLABLE_OMITTED],
      severity: 'observe',
    });
  });

  it('a non-nullable field left out beside a nullable one still fails under its type clause', () => {
    const tx = example('getTransaction', 'response');
    delete tx.montoOriginal;
    delete tx.esAprobada;
    expect(contract.validateResponse('getTransaction', 200, tx)).toEqual([
      expect.objectContaining({ path: '/esAprobada', keyword: 'required', clause: ['2.2-transaction-types'], severity: 'fail' }),
      expect.objectContaining({ path: '/montoOriginal', clause: [NULLABLE_OMITTED], severity: 'observe' }),
    ]);
    const account = example('deleteAccount', 'response');
    delete (account.aplicativos as Obj[])[0]!.urlLogo;
    expect(only(contract.validateResponse('deleteAccount', 200, account))).toMatchObject({
      path: '/aplicativos/0/urlLogo',
      keyword: 'required',
      severity: 'fail',
    });
  });

  it('only responses are read this way: a required nullable field left out of a request or a webhook fails', async () => {
    const body = { 'x-clause': '2.2-transaction-types', type: 'object', required: ['a'], properties: { a: { type: ['string', 'null'] } } };
    const media = { content: { 'application/json': { schema: body } } };
    const tiny = await createContract({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/x': { post: { operationId: 'x', security: [], requestBody: media, responses: { '2XX': { description: 'ok', ...media } } } },
      },
      webhooks: { w: { post: { operationId: 'w', requestBody: media, responses: { '2XX': { description: 'ok' } } } } },
    });
    expect(only(tiny.validateResponse('x', 200, {}))).toMatchObject({ path: '/a', clause: [NULLABLE_OMITTED], severity: 'observe' });
    expect(tiny.validateResponse('x', 200, { a: null })).toEqual([]);
    expect(only(tiny.validateRequest('x', {}))).toMatchObject({
      path: '/a',
      keyword: 'required',
      clause: ['2.2-transaction-types'],
      severity: 'fail',
    });
    expect(only(tiny.validateWebhook({}))).toMatchObject({ path: '/a', keyword: 'required', severity: 'fail' });
  });

  it('a required field is not nullable', () => {
    const body = example('getTransaction', 'response');
    body.esAprobada = null;
    expect(only(contract.validateResponse('getTransaction', 200, body))).toMatchObject({ path: '/esAprobada', keyword: 'type' });
  });
});

describe('responses: spec conflicts accept both readings', () => {
  const wallet = (patch: Obj) => contract.validateResponse('purchaseWallet', 200, { ...example('purchaseWallet', 'response'), ...patch });

  it('wallet resultadoTransaccion: a string (4.4) or an int 0..2 (2.2)', () => {
    for (const value of ['ExitosaAprobada', '0', 'Fallida', 0, 1, 2, null])
      expect(wallet({ resultadoTransaccion: value }), String(value)).toEqual([]);
    const outOfRange = only(wallet({ resultadoTransaccion: 3 }));
    expect(outOfRange).toMatchObject({ path: '/resultadoTransaccion', keyword: 'maximum' });
    expect(outOfRange.clause).toEqual(['4.4-resultado-string', '2.2-resultado-values']);
    expect(only(wallet({ resultadoTransaccion: true })).keyword).toBe('type');
  });

  it('wallet fechaTransaccion: a DateTime with or without an offset', () => {
    for (const value of ['2026-03-01T10:00:00', '2026-03-01T10:00:00.1234567', '2026-03-01T10:00:00Z', '2026-03-01T10:00:00-06:00']) {
      expect(wallet({ fechaTransaccion: value }), value).toEqual([]);
    }
    for (const value of ['2026-03-01', '01/03/2026 10:00', '2026-13-01T10:00:00']) {
      const violation = only(wallet({ fechaTransaccion: value }));
      expect(violation).toMatchObject({ path: '/fechaTransaccion', keyword: 'format' });
      expect(violation.clause).toEqual(['4.4-fecha-datetime']);
    }
  });

  it("tipoPersoneria: a string or the sample's number", () => {
    const account = (tipoPersoneria: unknown) =>
      contract.validateResponse('deleteAccount', 200, { ...example('deleteAccount', 'response'), tipoPersoneria });
    expect(account('Natural')).toEqual([]);
    expect(account(1)).toEqual([]);
    expect(only(account(true)).clause).toEqual(['2.6-tipo-personeria']);
  });
});

describe('requests: the stated rules', () => {
  const link = (patch: Obj = {}) => ({ ...example('createPaymentLink', 'request'), ...patch });
  const formaPago = (flags: boolean[]) => ({
    permitirTarjetaCreditoDebido: flags[0],
    permitirPagoConPuntoPartner: flags[1],
    permitirPagoEnCuotasPartner: flags[2],
    permitirPagoEnBitcoin: flags[3],
    permitePagoQuickPay: flags[4],
  });
  const request = (operationId: string, patch: Obj) =>
    contract.validateRequest(operationId, { ...example(operationId, 'request'), ...patch });
  const violates = (violations: Violation[], path: string, keyword: string, clause: string) => {
    const violation = only(violations);
    expect(violation).toMatchObject({ path, keyword });
    expect(violation.clause).toEqual([clause]);
  };

  it('link monto: 0.01 accepted; 0 and negative rejected (4.1-monto-min)', () => {
    expect(contract.validateRequest('createPaymentLink', link({ monto: 0.01 }))).toEqual([]);
    violates(contract.validateRequest('createPaymentLink', link({ monto: 0 })), '/monto', 'minimum', '4.1-monto-min');
    violates(contract.validateRequest('createPaymentLink', link({ monto: -5 })), '/monto', 'minimum', '4.1-monto-min');
  });

  it('link formaPago: all false rejected, any one true accepted, omitted accepted, a missing flag rejected', () => {
    violates(
      contract.validateRequest('createPaymentLink', link({ formaPago: formaPago([false, false, false, false, false]) })),
      '/formaPago',
      'anyOf',
      '4.1-formapago-one-true',
    );
    for (let i = 0; i < 5; i++) {
      const flags = [false, false, false, false, false];
      flags[i] = true;
      expect(contract.validateRequest('createPaymentLink', link({ formaPago: formaPago(flags) }))).toEqual([]);
    }
    const body = link();
    delete body.formaPago;
    expect(contract.validateRequest('createPaymentLink', body)).toEqual([]);
    const partial = formaPago([true, false, false, false, false]) as Obj;
    delete partial.permitePagoQuickPay;
    violates(
      contract.validateRequest('createPaymentLink', link({ formaPago: partial })),
      '/formaPago/permitePagoQuickPay',
      'required',
      '4.1-formapago-all-fields',
    );
  });

  it('link configuracion: urlWebhook or emailsNotificacion non-null (4.1-notification-target)', () => {
    const configuracion = (patch: Obj) => {
      const c: Obj = { notificarTransaccionCliente: false, ...patch };
      for (const [k, v] of Object.entries(c)) if (v === undefined) delete c[k];
      return link({ configuracion: c });
    };
    violates(contract.validateRequest('createPaymentLink', configuracion({})), '/configuracion', 'anyOf', '4.1-notification-target');
    violates(
      contract.validateRequest('createPaymentLink', configuracion({ urlWebhook: null, emailsNotificacion: null })),
      '/configuracion',
      'anyOf',
      '4.1-notification-target',
    );
    expect(contract.validateRequest('createPaymentLink', configuracion({ urlWebhook: 'https://m.example/wh' }))).toEqual([]);
    expect(contract.validateRequest('createPaymentLink', configuracion({ emailsNotificacion: 'a@m.example', urlWebhook: null }))).toEqual(
      [],
    );
    const without = link();
    delete without.configuracion;
    violates(contract.validateRequest('createPaymentLink', without), '/configuracion', 'required', '4.1-notification-target');
  });

  it('link configuracion.notificarTransaccionCliente is required (4.1-notificar-required)', () => {
    violates(
      contract.validateRequest('createPaymentLink', link({ configuracion: { urlWebhook: 'https://m.example/wh' } })),
      '/configuracion/notificarTransaccionCliente',
      'required',
      '4.1-notificar-required',
    );
  });

  it('nombreProducto and identificadorEnlaceComercio: 500 characters accepted, 501 rejected', () => {
    expect(
      contract.validateRequest(
        'createPaymentLink',
        link({ nombreProducto: 'x'.repeat(500), identificadorEnlaceComercio: 'y'.repeat(500) }),
      ),
    ).toEqual([]);
    violates(
      contract.validateRequest('createPaymentLink', link({ nombreProducto: 'x'.repeat(501) })),
      '/nombreProducto',
      'maxLength',
      '4.1-nombre-producto-max-500',
    );
    violates(
      contract.validateRequest('createPaymentLink', link({ identificadorEnlaceComercio: 'y'.repeat(501) })),
      '/identificadorEnlaceComercio',
      'maxLength',
      '4.1-identificador-max-500',
    );
  });

  it('descripcionProducto is unbounded', () => {
    expect(contract.validateRequest('createPaymentLink', link({ infoProducto: { descripcionProducto: 'd'.repeat(100_000) } }))).toEqual([]);
  });

  it('cantidadMaximaCuotas: Tres, Seis, Nueve, Doce only', () => {
    for (const value of ['Tres', 'Seis', 'Nueve', 'Doce'])
      expect(contract.validateRequest('createPaymentLink', link({ cantidadMaximaCuotas: value }))).toEqual([]);
    violates(
      contract.validateRequest('createPaymentLink', link({ cantidadMaximaCuotas: 3 })),
      '/cantidadMaximaCuotas',
      'type',
      '4.1-cuotas-enum',
    );
    expect(only(contract.validateRequest('createPaymentLink', link({ cantidadMaximaCuotas: 'Cuatro' }))).keyword).toBe('enum');
  });

  it('quick-pay: monto greater than 0; idExterno 50 accepted, 51 rejected', () => {
    expect(request('purchaseQuickPay', { monto: 0.01, idExterno: 'e'.repeat(50) })).toEqual([]);
    violates(request('purchaseQuickPay', { monto: 0 }), '/monto', 'exclusiveMinimum', '4.6-monto-positive');
    violates(request('purchaseQuickPay', { idExterno: 'e'.repeat(51) }), '/idExterno', 'maxLength', '4.6-idexterno-max-50');
  });

  it('MPOS: mesVencimiento 1..12, monto greater than 0', () => {
    for (const month of [1, 12]) expect(request('purchaseMposBanda', { mesVencimiento: month })).toEqual([]);
    violates(request('purchaseMposBanda', { mesVencimiento: 13 }), '/mesVencimiento', 'maximum', '4.7-mes-range');
    violates(request('purchaseMposBanda', { mesVencimiento: 0 }), '/mesVencimiento', 'minimum', '4.7-mes-range');
    violates(request('purchaseMposBanda', { monto: 0 }), '/monto', 'exclusiveMinimum', '4.7-monto-positive');
  });

  it('3DS: the card object spelled tarjetaCreditoDebido, card number without spaces, cvv digits (described: observed)', () => {
    const body = example('purchase3ds', 'request');
    const card = body.tarjetaCreditoDebido as Obj;
    violates(
      request('purchase3ds', { tarjetaCreditoDebido: { ...card, numeroTarjeta: '4111 1111 1111 1111' } }),
      '/tarjetaCreditoDebido/numeroTarjeta',
      'pattern',
      '4.3-card-formats',
    );
    violates(
      request('purchase3ds', { tarjetaCreditoDebido: { ...card, cvv: '12a' } }),
      '/tarjetaCreditoDebido/cvv',
      'pattern',
      '4.3-card-formats',
    );
    expect(only(request('purchase3ds', { tarjetaCreditoDebido: { ...card, cvv: '12a' } })).severity).toBe('observe');
    // the type is stated: a cvv that is not a string fails under the card's rule, not under the description
    expect(only(request('purchase3ds', { tarjetaCreditoDebido: { ...card, cvv: 111 } }))).toMatchObject({
      keyword: 'type',
      clause: ['4.3-card-fields'],
      severity: 'fail',
    });
    delete body.tarjetaCreditoDebido;
    violates(
      contract.validateRequest('purchase3ds', { ...body, tarjetaCreditoDebito: card }),
      '/tarjetaCreditoDebido',
      'required',
      '4.3-request-fields',
    );
  });

  it('token request: grant_type client_credentials and audience service_api', () => {
    violates(request('issueToken', { grant_type: 'password' }), '/grant_type', 'const', '5.1-grant-type');
    violates(request('issueToken', { audience: 'other' }), '/audience', 'const', '5.1-audience');
  });

  it('operations without a request body accept any body', () => {
    expect(contract.validateRequest('getTransaction', undefined)).toEqual([]);
    expect(contract.validateRequest('deleteAccount', { anything: true })).toEqual([]);
  });
});

describe('webhook (6.1)', () => {
  it('carries esProductiva as a boolean and allows any other field', () => {
    const body = webhookExample();
    expect(contract.validateWebhook({ ...body, firma: 'x', Otro: 1 })).toEqual([]);
    const missing = webhookExample();
    delete missing.esProductiva;
    expect(only(contract.validateWebhook(missing))).toMatchObject({
      path: '/esProductiva',
      keyword: 'required',
      clause: ['6.1-webhook-esproductiva'],
    });
    expect(only(contract.validateWebhook({ ...body, esProductiva: 'false' }))).toMatchObject({
      path: '/esProductiva',
      clause: ['6.1-webhook-esproductiva'],
    });
  });

  it("types datosAdicionales as the caller's string dictionary", () => {
    expect(only(contract.validateWebhook({ ...webhookExample(), datosAdicionales: { pedido: 1001 } }))).toMatchObject({
      path: '/datosAdicionales/pedido',
      clause: ['6.1-webhook-datos-adicionales'],
    });
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '../../harness/api/contract.ts';
import { CLAUSES_PATH } from '../../spec/clauses.ts';
import { lintSpec, normalizeSpecText, specSections } from '../../spec/lint.ts';

// biome-ignore lint/suspicious/noExplicitAny: the YAML documents these tests edit are any shape
type Obj = Record<string, any>;

const specPath = fileURLToPath(new URL('../../../shared/spec/payment-service-api.md', import.meta.url));
const specText = existsSync(specPath) ? readFileSync(specPath, 'utf8') : undefined;

let document: Obj;
let clauses: Obj[];
beforeAll(async () => {
  document = (await SwaggerParser.parse(fileURLToPath(OPENAPI_PATH))) as Obj;
  clauses = parse(readFileSync(CLAUSES_PATH, 'utf8')) as Obj[];
});

/** Lints a modified copy of the document (and of the clauses). */
function lint(change: (doc: Obj, clauseList: Obj[]) => void = () => {}): string[] {
  const doc = structuredClone(document);
  const list = structuredClone(clauses);
  change(doc, list);
  return lintSpec({ document: doc, clauses: list, specText }).problems;
}

describe('spec/openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
    expect(document.openapi).toBe('3.1.0');
    expect(document.info['x-spec-document']).toBe('payment-service-api.md');
  });

  it('passes the lint together with clauses.yaml', () => {
    const { problems, counts } = lintSpec({ document, clauses, specText });
    expect(problems).toEqual([]);
    expect(counts).toMatchObject({ operations: 10, webhooks: 1 });
    expect(counts.clauses).toBeGreaterThanOrEqual(80);
    expect(counts.clauseRefs).toBeGreaterThan(60);
  });
});

describe('the lint catches', () => {
  it('a rule keyword without x-clause', () => {
    expect(lint((doc) => delete doc.components.schemas.PurchaseQuickPayRequest.properties.monto['x-clause'])).toEqual([
      'components.schemas.PurchaseQuickPayRequest.properties.monto: exclusiveMinimum without x-clause',
    ]);
    expect(lint((doc) => delete doc.components.schemas.PaymentLink.properties.cantidadMaximaCuotas['x-clause'])).toEqual([
      'components.schemas.PaymentLink.properties.cantidadMaximaCuotas: enum without x-clause',
    ]);
  });

  it('a cross-field rule without x-clause (anyOf, or required inside an allOf branch)', () => {
    expect(lint((doc) => delete doc.components.schemas.FormaPagoRequest.allOf[1]['x-clause'])).toEqual([
      'components.schemas.FormaPagoRequest.allOf[1]: anyOf without x-clause',
    ]);
    expect(lint((doc) => delete doc.components.schemas.PaymentLinkCreateRequest.allOf[0]['x-clause'])).toEqual([
      'components.schemas.PaymentLinkCreateRequest.allOf[0]: required (a cross-field rule) without x-clause',
    ]);
  });

  it('not a nullable reference (anyOf [X, null]) without x-clause: that is a type', () => {
    expect(document.components.schemas.PaymentLink.properties.vigencia['x-clause']).toBeUndefined();
    expect(lint()).toEqual([]);
  });

  it('an operation without x-clause or without a 2XX JSON schema', () => {
    expect(lint((doc) => delete doc.paths['/EnlacePago'].post['x-clause'])).toEqual(['paths./EnlacePago.post: operation without x-clause']);
    expect(
      lint((doc) => {
        const responses = doc.paths['/TransaccionCompra/{id}'].get.responses;
        responses['200'] = responses['2XX'];
        delete responses['2XX'];
      }),
    ).toEqual(["paths./TransaccionCompra/{id}.get: no '2XX' response with an application/json schema"]);
  });

  it('an x-clause naming no clause of clauses.yaml', () => {
    expect(lint((doc) => (doc.components.schemas.PaymentLinkCreateRequest.properties.monto['x-clause'] = '4.1-monto-minimo'))).toEqual([
      'components.schemas.PaymentLinkCreateRequest.properties.monto: x-clause names "4.1-monto-minimo", which is not in clauses.yaml',
    ]);
    expect(lint((doc) => (doc.paths['/Cuenta'].delete['x-clause'] = []))).toEqual([
      'paths./Cuenta.delete: x-clause must be a clause id or a non-empty list of ids',
    ]);
  });

  it('a description clause (observed, never failed) on a schema without a format or pattern, where it would cover nothing', () => {
    expect(lint((doc) => (doc.components.schemas.PaymentLinkCreateRequest.properties.monto['x-clause'] = '4.3-id-region-iso'))).toEqual([
      'components.schemas.PaymentLinkCreateRequest.properties.monto: x-clause names the description ' +
        '"4.3-id-region-iso", which covers only a format or pattern, on a schema with neither',
    ]);
  });

  it('a clause id removed while x-clause still cites it', () => {
    const problems = lint((_doc, list) =>
      list.splice(
        list.findIndex((c) => c.id === '4.1-monto-min'),
        1,
      ),
    );
    expect(problems).toEqual([
      'components.schemas.PaymentLinkCreateRequest.properties.monto: x-clause names "4.1-monto-min", which is not in clauses.yaml',
    ]);
  });

  it('duplicate ids, missing fields, unknown kinds and ids that do not start with their section', () => {
    const at = (list: Obj[], id: string) => list.findIndex((c) => c.id === id);
    expect(lint((_doc, list) => list.push({ ...list[0] }))).toEqual([`clauses.yaml[${clauses.length}] (${clauses[0]!.id}): duplicate id`]);
    expect(lint((_doc, list) => delete list[at(list, '7-cvv-111-declines')]!.kind)).toEqual([
      'clauses.yaml[' + clauses.findIndex((c) => c.id === '7-cvv-111-declines') + '] (7-cvv-111-declines): missing kind',
    ]);
    const i = clauses.findIndex((c) => c.id === '8-rate-limits-not-shown');
    expect(lint((_doc, list) => (list[i]!.kind = 'note'))).toEqual([
      `clauses.yaml[${i}] (8-rate-limits-not-shown): unknown kind "note" (one of rule, flow, type, description, observation, security)`,
    ]);
    expect(lint((_doc, list) => (list[i]!.section = '7'))).toEqual([
      `clauses.yaml[${i}] (8-rate-limits-not-shown): id does not start with its section 7`,
    ]);
  });

  it('a security check (not a spec clause) without its own id form, section or OWASP citation; its quote is not checked', () => {
    const i = clauses.findIndex((c) => c.id === 'security-tenant-link-activate');
    expect(i).toBeGreaterThan(-1);
    expect(lint()).toEqual([]);
    expect(lint((_doc, list) => (list[i]!.text = 'another merchant cannot activate the link'))).toEqual([
      `clauses.yaml[${i}] (security-tenant-link-activate): a security check's text must cite its source, OWASP ` +
        `API1:2023 (Broken Object Level Authorization)`,
    ]);
    expect(lint((_doc, list) => (list[i]!.section = '4.2'))).toEqual([
      `clauses.yaml[${i}] (security-tenant-link-activate): a security check's section must be "security" (it is no section of the spec)`,
    ]);
    expect(lint((_doc, list) => (list[i]!.id = '4.2-tenant'))).toContainEqual(
      expect.stringContaining("a security check's id must be security-<slug>"),
    );
  });

  it.skipIf(specText === undefined)('a section that does not exist and a quote that is not in the spec', () => {
    expect(lint((_doc, list) => list.push({ id: '4.12-nothing', section: '4.12', kind: 'rule', text: 'Rate limits: not shown.' }))).toEqual(
      [`clauses.yaml[${clauses.length}] (4.12-nothing): section 4.12 does not exist in the spec`],
    );
    const i = clauses.findIndex((c) => c.id === '4.1-monto-min');
    expect(lint((_doc, list) => (list[i]!.text = 'monto | yes | double | At least 0.1'))).toEqual([
      `clauses.yaml[${i}] (4.1-monto-min): text not found in the spec: "monto yes double At least 0.1"`,
    ]);
  });

  it('without the spec document, skips only the section and quote checks', () => {
    const { problems, counts } = lintSpec({
      document,
      clauses: [...clauses, { id: '4.12-x', section: '4.12', kind: 'rule', text: 'invented' }],
    });
    expect(problems).toEqual([]);
    expect(counts.quotesVerified).toBe(0);
    expect(lintSpec({ document, clauses: [{ id: '4.1-x', section: '4.1', kind: 'rule' }] }).problems).toContain(
      'clauses.yaml[0] (4.1-x): missing text',
    );
  });

  it('clauses.yaml that is not a list', () => {
    expect(lintSpec({ document, clauses: { id: 'x' }, specText }).problems).toContain(
      'clauses.yaml: must be a YAML list of {id, section, text, kind}',
    );
  });
});

describe('spec text helpers', () => {
  it.skipIf(specText === undefined)('finds headings and the numbered items of sections 5 and 6', () => {
    const sections = specSections(specText!);
    for (const id of ['2', '2.7', '3', '4.1', '4.11', '5.1', '5.3', '5.5', '6.1', '6.4', '7', '8']) expect(sections).toContain(id);
    for (const id of ['4.12', '5.6', '6.5', '2.8', '4.1.1']) expect(sections).not.toContain(id);
  });

  it('normalises markdown so table rows and code spans can be quoted', () => {
    expect(normalizeSpecText('| monto | yes | double |\n| `usable` **x** |')).toBe('monto yes double usable x');
    expect(normalizeSpecText('### 4.1 POST /EnlacePago')).toBe('4.1 POST /EnlacePago');
  });
});

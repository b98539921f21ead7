/**
 * The pieces of `npm run mutation:stryker` that decide what is measured: the plumbing ignorer (on small sources, by
 * Stryker's own instrumenter), the seeded sample (the same seed, the same mutants), and the triage file's refusals.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enumerate, mutantKey, seededSample } from '../../scripts/stryker/sample.ts';
import { PLUMBING_DECLARATIONS } from '../../scripts/stryker/ignorers.ts';
import { loadTriage, matchTriage, staleEntries, TriageError } from '../../scripts/stryker/triage.ts';

/** A run of the command instruments the whole sandbox first (about 20 s idle): no bound a loaded machine could break. */
const ENUMERATION_TIMEOUT = 600_000;

async function mutantsOf(source: string, name = 'links.ts') {
  const dir = mkdtempSync(join(tmpdir(), 'stryker-unit-'));
  const file = join(dir, 'sandbox', name);
  mkdirSync(join(dir, 'sandbox'));
  writeFileSync(file, source);
  const found = await enumerate([file]);
  return { ...found, lines: found.mutants.map((m) => source.split('\n')[m.location.start.line]!.trim()) };
}

describe('the sandbox-plumbing ignorer', () => {
  it('ignores a fault check and the branch only the fault takes, keeps the default branch', async () => {
    const { lines, ignored } = await mutantsOf(
      ['export function f(ctx: any, a: number) {', "  if (ctx.fault('x')) {", '    return a - 1;', '  }', '  return a + 1;', '}'].join(
        '\n',
      ),
    );
    expect(lines.some((l) => l.includes('a + 1'))).toBe(true);
    expect(lines.some((l) => l.includes('a - 1') || l.includes('fault'))).toBe(false);
    expect(Object.values(ignored).reduce((x, y) => x + y, 0)).toBeGreaterThan(0);
  });

  it('keeps the alternate of a variant ?: and ignores what follows `if (!variant) return`', async () => {
    const { lines } = await mutantsOf(
      [
        'export function g(ctx: any, s: string) {',
        "  const r = ctx.variant('v') ? /^\\d{1,15}$/ : /^\\d{1,9}$/;",
        "  if (!ctx.variant('w')) return r.test(s);",
        "  return s === 'only-with-w';",
        '}',
      ].join('\n'),
    );
    expect(lines.some((l) => l.includes('const r'))).toBe(true);
    expect(lines.some((l) => l.includes('only-with-w'))).toBe(false);
  });

  it('ignores what an optional call of the variant switch decides (variant?.(…)), keeps the default path', async () => {
    const { lines } = await mutantsOf(
      [
        'export function v(tx: any, variant?: (id: string) => boolean) {',
        "  if (variant?.('x')) {",
        '    return tx.a ?? {};',
        '  }',
        '  return tx.b ?? 1;',
        '}',
      ].join('\n'),
    );
    expect(lines.some((l) => l.includes('tx.a'))).toBe(false);
    expect(lines.some((l) => l.includes('tx.b'))).toBe(true);
  });

  it('ignores code only another hosted screen runs', async () => {
    const { lines } = await mutantsOf(
      ['export function h(ctx: any, n: number) {', "  if (ctx.options.screen !== 'frame') return n;", '  return n * 2;', '}'].join('\n'),
    );
    expect(lines.some((l) => l.includes('n * 2'))).toBe(false);
  });

  it('ignores the branch of a const bound to a switch, a conjunction with a switch and a test of switches only', async () => {
    const { mutants } = await mutantsOf(
      [
        'export function m(ctx: any, f: (s: string) => string, n: number) {',
        "  const porCuenta = f('grant_type') === 'password' && ctx.variant('v');",
        '  let r = n + 1;',
        '  if (porCuenta) {',
        '    r = n * 7;',
        '  }',
        "  if (!ctx.fault('a') && !ctx.fault('b')) {",
        '    r = r - 3;',
        '  }',
        '  return r;',
        '}',
      ].join('\n'),
    );
    // What is left: the function's body, n + 1, the default branch (its block and r - 3); nothing of lines 1, 3-4, nor
    // the test of line 6.
    const kept = mutants.map((m) => `${m.location.start.line} ${m.mutatorName}`).sort();
    expect(kept).toEqual(['0 BlockStatement', '2 ArithmeticOperator', '6 BlockStatement', '7 ArithmeticOperator']);
  });

  it('reads a switch helper, exported or not, before its body is instrumented: the branch it decides is plumbing', async () => {
    const { lines } = await mutantsOf(
      [
        "export function enIngles(ctx: any): boolean { return ctx.variant('pages-english'); }",
        "function reto(ctx: any): boolean { return enIngles(ctx) || ctx.fault('x'); }",
        'export function k(ctx: any, n: number) {',
        '  if (enIngles(ctx)) return n * 2;',
        '  if (reto(ctx)) return n * 3;',
        '  return n + 1;',
        '}',
      ].join('\n'),
    );
    expect(lines.some((l) => l.includes('n + 1'))).toBe(true);
    expect(lines.some((l) => l.includes('n * 2') || l.includes('n * 3'))).toBe(false);
  });
});

describe('an || of switches only', () => {
  it('ignores it wherever it stands, keeps an || with behaviour in it', async () => {
    const source = [
      'export function f(ctx: any, a: boolean) {',
      "  const pide = ctx.options.screen === 'challenge' || ctx.variant('x');",
      "  const otro = a || ctx.variant('y');",
      '  return [pide, otro];',
      '}',
    ].join('\n');
    const { lines } = await mutantsOf(source);
    expect(lines.some((l) => l.startsWith('const pide ='))).toBe(false);
    expect(lines.some((l) => l.startsWith('const otro ='))).toBe(true);
  });
});

describe('the plumbing declarations', () => {
  it('ignores a declaration of the table in its file, and the same name in another file', async () => {
    const source = "export const PERSONA = [['apellidoCliente', 'Apellido']];\nexport const OTRA = [['x', 'y']];";
    const inTable = await mutantsOf(source, 'card-fields.ts');
    expect(inTable.lines.some((l) => l.includes('PERSONA'))).toBe(false);
    expect(inTable.lines.some((l) => l.includes('OTRA'))).toBe(true);
    expect((await mutantsOf(source, 'links.ts')).lines.some((l) => l.includes('PERSONA'))).toBe(true);
  });

  it("ignores a property of the table (the store's stats) in its file, keeps the store's other properties", async () => {
    const source = 'export const s = () => ({\n  stats: { purchaseRequests: 0 },\n  outbox: { webhooks: [] },\n});';
    const { lines } = await mutantsOf(source, 'store.ts');
    expect(lines.some((l) => l.startsWith('stats'))).toBe(false);
    expect(lines.some((l) => l.startsWith('outbox'))).toBe(true);
  });

  it("ignores the argument only a fault reads (valorEnum's enum name), keeps the value", async () => {
    const source = "export const v = (f: any, tx: any) => ({\n  a: valorEnum(f, 'formaPago',\n tx.formaPago ?? 1),\n});";
    const { lines } = await mutantsOf(source, 'views.ts');
    expect(lines.some((l) => l.includes("'formaPago',"))).toBe(false);
    expect(lines.some((l) => l.includes('tx.formaPago ?? 1'))).toBe(true);
  });

  it('names declarations that exist: each entry of the table is declared in its file', () => {
    for (const d of PLUMBING_DECLARATIONS) {
      const text = readFileSync(join(import.meta.dirname, '../..', d.file), 'utf8');
      const declared = d.property ? `\\b${d.name}: ` : `(function|const) ${d.name}\\b`;
      expect(text, `${d.file} declares ${d.name}`).toMatch(new RegExp(declared));
    }
  });

  it("ignores what a validation's switch (ajustes.*) decides, keeps the default path", async () => {
    const source = [
      'export class L {',
      '  v: any;',
      '  n(valor: string): number {',
      '    const texto = this.v.ajustes.sinRecortar ? valor : valor.trim();',
      '    return Number(texto);',
      '  }',
      '}',
    ].join('\n');
    const { mutants } = await mutantsOf(source, 'validate.ts');
    const at = mutants.map((m) => source.split('\n')[m.location.start.line]!.slice(m.location.start.column));
    expect(at.some((a) => a.startsWith('this.v.ajustes.sinRecortar ?'))).toBe(false);
    expect(at.some((a) => a.startsWith('valor.trim()'))).toBe(true);
  });

  it("ignores what a function's `pantalla` decides for another screen, keeps the html screen's path", async () => {
    const source = [
      'export function hosted(pantalla: string, form: string): string {',
      "  if (pantalla !== 'js' && pantalla !== 'frame') return form;",
      "  return JSON.stringify(form).replace(/</g, 'x');",
      '}',
    ].join('\n');
    const { lines } = await mutantsOf(source, 'html.ts');
    expect(lines.some((l) => l.includes("pantalla !== 'js'"))).toBe(false);
    expect(lines.some((l) => l.includes('JSON.stringify'))).toBe(false);
  });
});

describe('the wording ignorer', () => {
  it("ignores a page's words and a refusal's body and message, keeps the rules and the status", async () => {
    const source = [
      'export function w(t: any, v: any, b: any, reply: any, ok: boolean) {',
      "  const etiqueta = t('Número de tarjeta', 'Card number');",
      "  b.texto('nombreProducto', { requerido: true, max: 500, mensajePatron: 'palabras' });",
      "  if (!ok) v.error('monto', 'debe ser al menos 0.01');",
      "  if (!ok) return reply.code(404).send({ errores: [{ campo: 'id', mensaje: 'no encontrado' }] });",
      '  return etiqueta;',
      '}',
    ].join('\n');
    const { mutants } = await mutantsOf(source);
    // What each mutant replaces, read from the source at its start.
    const at = mutants.map((m) => source.split('\n')[m.location.start.line]!.slice(m.location.start.column));
    for (const words of ["'Número", "'palabras'", "'debe ser", '{ errores', '{ campo'])
      expect(at.some((a) => a.startsWith(words))).toBe(false);
    expect(at.some((a) => a.startsWith('{ requerido'))).toBe(true);
    expect(at.some((a) => a.startsWith('!ok) return'))).toBe(true);
  });

  it("ignores the embedder's options read in the factory, keeps what the service does with the resolved values", async () => {
    const source = [
      'export function buildApp(options: any, ctx: any) {',
      "  const host = options.host ?? '127.0.0.1';",
      "  const publico = host === '::' ? '127.0.0.1' : host;",
      '  const limite = ctx.limit + 1;',
      '  return [publico, limite];',
      '}',
    ].join('\n');
    const { lines } = await mutantsOf(source, 'index.ts');
    expect(lines.some((l) => l.includes('options.host'))).toBe(false);
    expect(lines.some((l) => l.includes("host === '::'"))).toBe(false);
    expect(lines.some((l) => l.includes('ctx.limit + 1'))).toBe(true);
  });

  it("ignores the definition of a page's words helper (t = (es, en) => texto(ctx, es, en)), keeps another arrow", async () => {
    const source = [
      'export function page(ctx: any, n: number) {',
      '  const t = (es: string, en: string) => texto(ctx, es, en);',
      '  const doble = (x: number) => x * 2;',
      "  return t('Pagar', 'Pay') + doble(n);",
      '}',
    ].join('\n');
    const { lines } = await mutantsOf(source);
    expect(lines.some((l) => l.startsWith('const t ='))).toBe(false);
    expect(lines.some((l) => l.startsWith('const doble ='))).toBe(true);
  });

  it('ignores a const spelt only into wording (directly or through another), keeps one the behaviour reads too', async () => {
    const source = [
      'export function f(v: any, tipo: string, ok: boolean) {',
      "  const que = tipo === 'email' ? 'correos' : 'telefonos';",
      "  const cuenta = ok ? 'la cuenta' : 'el token';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template literal, instrumented as text
      '  const esperado = { a: cuenta, b: `o ${cuenta}` }[tipo];',
      "  const limite = tipo === 'email' ? 5 : 9;",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template literal, instrumented as text
      '  if (!ok) v.error(tipo, `debe ser una lista de ${que} (${limite})`);',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template literal, instrumented as text
      "  if (limite > 6) return { errores: [{ campo: 'x', mensaje: `se requiere ${esperado}` }] };",
      '  return null;',
      '}',
    ].join('\n');
    const { lines } = await mutantsOf(source);
    for (const name of ['que', 'cuenta', 'esperado']) expect(lines.some((l) => l.startsWith(`const ${name} =`))).toBe(false);
    expect(lines.some((l) => l.startsWith('const limite ='))).toBe(true);
  });

  it('ignores a builder of an error body, keeps the status of the refusal', async () => {
    const source = [
      'export function h(reply: any, code: number) {',
      '  const errores = (campo: string, mensaje: string) => ({ errores: [{ campo, mensaje }] });',
      "  return reply.code(code >= 500 ? 500 : 400).send(errores('$', 'no'));",
      '}',
    ].join('\n');
    const { mutants } = await mutantsOf(source, 'index.ts');
    const at = mutants.map((m) => source.split('\n')[m.location.start.line]!.slice(m.location.start.column));
    expect(at.some((a) => a.startsWith('(campo: string'))).toBe(false);
    expect(at.some((a) => a.startsWith('code >= 500'))).toBe(true);
  });

  it("ignores a status page's detail made a sentence (frase), keeps the state shown", async () => {
    const source = [
      "export function estado(estado: string, detalle = '') {",
      "  const frase = detalle === '' ? '' : detalle.charAt(0).toUpperCase() + detalle.slice(1) + '.';",
      "  const marca = estado === 'aprobada' ? 'ok' : 'error';",
      '  return [marca, frase];',
      '}',
    ].join('\n');
    const { lines } = await mutantsOf(source, 'html.ts');
    expect(lines.some((l) => l.startsWith('const frase ='))).toBe(false);
    expect(lines.some((l) => l.startsWith('const marca ='))).toBe(true);
  });

  it("ignores the words the seeded accounts describe themselves with, keeps their other data and another file's", async () => {
    const source =
      "export const cuenta = { calle: 'Pasaje 3', tipoPersoneria: 'Natural', idCuenta: 'c-1', aplicaPagoConBitcoin: true, permisoMpos: true };";
    const seeded = await mutantsOf(source, 'store.ts');
    const at = seeded.mutants.map((m) => source.slice(m.location.start.column));
    expect(at.some((a) => a.startsWith("'Pasaje 3'"))).toBe(false);
    expect(at.some((a) => a.startsWith('true, permisoMpos'))).toBe(false);
    expect(at.some((a) => a.startsWith("'Natural'"))).toBe(true);
    expect(at.some((a) => a.startsWith('true }'))).toBe(true);
    expect((await mutantsOf(source, 'links.ts')).mutants.length).toBe(seeded.mutants.length + 2);
  });

  it('ignores the simulated network and the other screens as whole files', async () => {
    const source = 'export function f(a: number) {\n  return a + 1;\n}';
    expect((await mutantsOf(source, 'network.ts')).mutants).toEqual([]);
    expect((await mutantsOf(source, 'screen-frame.ts')).mutants).toEqual([]);
    expect((await mutantsOf(source, 'screen.ts')).mutants.length).toBeGreaterThan(0);
  });
});

describe('the seeded sample', () => {
  const keys = Array.from({ length: 200 }, (_, i) => `sandbox/x.ts:${i}:0-${i}:5 ConditionalExpression true`);
  it('gives the same mutants for the same seed, whatever order they were found in, and others for another seed', () => {
    const a = seededSample(keys, 20, 7);
    expect(seededSample([...keys].reverse(), 20, 7)).toEqual(a);
    expect(new Set(a).size).toBe(20);
    expect(seededSample(keys, 20, 8)).not.toEqual(a);
  });
  it('names a mutant by place, mutator and replacement, relative to the root', () => {
    const key = mutantKey(
      {
        fileName: '/r/sandbox/a.ts',
        mutatorName: 'StringLiteral',
        replacement: '""',
        location: { start: { line: 3, column: 4 }, end: { line: 3, column: 9 } },
      },
      '/r',
    );
    expect(key).toBe('sandbox/a.ts:3:4-3:9 StringLiteral ""');
  });
});

describe('the triage file', () => {
  const write = (text: string): string => {
    const file = join(mkdtempSync(join(tmpdir(), 'triage-')), 'mutation-triage.yaml');
    writeFileSync(file, text);
    return file;
  };
  it('refuses an entry without a clause or without a reason', () => {
    expect(() =>
      loadTriage(write('- where: sandbox/a.ts:1:1\n  mutator: StringLiteral\n  reason: "equivalent: the text is never read by anyone"\n')),
    ).toThrow(/no clause/);
    expect(() => loadTriage(write("- where: sandbox/a.ts:1:1\n  mutator: StringLiteral\n  clause: '4.1'\n"))).toThrow(/no reason/);
  });
  it('refuses a reason that is neither equivalent nor an open reading, and an open reading without its variant', () => {
    expect(() => loadTriage(write("- where: a:1:1\n  mutator: M\n  clause: '4.1'\n  reason: later\n"))).toThrow(TriageError);
    expect(() =>
      loadTriage(write("- where: a:1:1\n  mutator: M\n  clause: '4.1'\n  reason: 'open reading: the spec does not say which'\n")),
    ).toThrow(/variant/);
  });
  it('matches a survivor by place and mutator (and replacement when given)', () => {
    const entries = loadTriage(
      write("- where: sandbox/a.ts:1:1\n  mutator: M\n  clause: '4.1'\n  reason: 'equivalent: both branches build the same value'\n"),
    );
    expect(matchTriage(entries, { where: 'sandbox/a.ts:1:1', mutator: 'M', replacement: 'x' })).toBeDefined();
    expect(matchTriage(entries, { where: 'sandbox/a.ts:1:2', mutator: 'M', replacement: 'x' })).toBeUndefined();
  });
  it('names an entry stale when no mutant is at its place with its mutator (the code moved under it)', () => {
    const entries = loadTriage(
      write(
        "- where: sandbox/a.ts:1:1\n  mutator: M\n  clause: '4.1'\n  reason: 'equivalent: both branches build the same value'\n" +
          "- where: sandbox/a.ts:2:5\n  mutator: M\n  replacement: 'y'\n  clause: '4.1'\n  reason: 'equivalent: the value is read nowhere'\n",
      ),
    );
    const stale = staleEntries(entries, [
      { where: 'sandbox/a.ts:1:1', mutator: 'M', replacement: 'x' },
      { where: 'sandbox/a.ts:2:5', mutator: 'M', replacement: 'z' },
    ]);
    expect(stale.map((e) => e.where)).toEqual(['sandbox/a.ts:2:5']);
  });
  it(
    'the committed file has no stale entry: each explains a mutant Stryker makes of the sandbox today',
    () => {
      const run = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'scripts/mutation-stryker.ts', '--sample', '1', '--seed', '1', '--list'],
        {
          encoding: 'utf8',
        },
      );
      expect(run.status).toBe(0);
      expect(run.stdout.split('\n').filter((l) => l.startsWith('stale triage entry'))).toEqual([]);
    },
    ENUMERATION_TIMEOUT,
  );
});

describe('--survivors-of', () => {
  it(
    'refuses, before any run, a summary that is not of the same sample',
    () => {
      const summary = join(mkdtempSync(join(tmpdir(), 'stryker-unit-')), 'summary.json');
      writeFileSync(summary, JSON.stringify({ seed: 8, sample: 3, killedBy: [{ key: 'sandbox/a.ts:1:1-1:2 M x' }] }));
      const run = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'scripts/mutation-stryker.ts', '--sample', '3', '--seed', '7', '--survivors-of', summary, '--list'],
        { encoding: 'utf8' },
      );
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/is not a summary of a sample of this seed and size .*run the whole sample/);
    },
    ENUMERATION_TIMEOUT,
  );
});

/**
 * The Stryker ignorer of `npm run mutation:stryker` (scripts/mutation-stryker.ts): keeps the sandbox's plumbing out of
 * the mutants by construction, so that what is sampled is the behaviour the spec describes. Plumbing is
 *  - a fault or variant check (`ctx.fault('…')`, `ctx.variant('…')`, `variant('…')`, a const bound to one, and the
 *    hosted screen served, `ctx.options.screen === 'frame'`: SANDBOX_SCREEN) and the code only a fault, variant or
 *    other screen runs: off in the default configuration, so its mutants are equivalent there (a mutant forcing a
 *    variant on is spec-valid by the catalogue's own contract; the other screens are judged by .ci/run's screen runs);
 *  - the test-control API (control.ts, tenants.ts: /__sandbox, outside the spec), the simulated internet (network.ts:
 *    SANDBOX_NETWORK, off by default, judged by its own tests and .ci/run's network runs), the other screens' files
 *    (screen-frame.ts, screen-steps.ts), and the checks of the sandbox's own options (`throw new Error('sandbox
 *    option …')`, `resolveOptions`, a default or test of `options.x` in the factory) and of the screen (`pantalla`);
 *  - logging (`console.*`, `*.log.*`);
 *  - wording no clause fixes: an error body and its messages (spec 7: the error format is "not shown"; the refusal's
 *    status stays in), and the words a page shows people (`t('…', '…')`, `texto(ctx, …)`, a status page's title and
 *    detail, its messages, the style sheet). A suite that failed on them would cry wolf.
 * Each reason names its kind, so the command counts what each removes.
 */
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** The parts of babel's NodePath this ignorer reads (the API types it opaque). */
interface Path {
  node: Node;
  key: string | number | null;
  parentPath: Path | null;
  container?: unknown;
  scope: { getBinding(name: string): { path: { node: Node }; kind: string; referencePaths: Path[] } | undefined };
  hub?: { file?: { opts?: { filename?: string } } };
}
interface Node {
  type: string;
  [field: string]: unknown;
}

export const IGNORE_REASONS = {
  plumbing: 'plumbing: a fault, variant or screen check, or code only a fault, variant or other screen runs (off by default)',
  control: 'plumbing: the test-control API (/__sandbox, outside the spec)',
  logging: 'plumbing: logging',
  options: "plumbing: the embedder's sandbox options read and checked (outside the spec, fixed in the judged run)",
  network: 'plumbing: the simulated internet in front of the sandbox (network.ts, SANDBOX_NETWORK, off by default)',
  screens: 'plumbing: code only another screen runs (screen-frame.ts, screen-steps.ts; SANDBOX_SCREEN, off by default)',
  wording: 'wording: an error body or message (spec 7: "not shown") or the words a page shows people (no clause fixes them)',
  seed: 'seed data: what the seeded accounts and businesses say of themselves, their words and the payment forms they list (2.6 fields the spec only describes)',
} as const;

/**
 * store.ts: the seeded accounts' descriptive text (names, addresses) and the seeded businesses' aplicaPagoCon* flags,
 * data as the catalogues are, not behaviour: the flags are read only by the account record DELETE /Cuenta answers
 * (4.9, of the disposable account, whose settings a remote target's operator chooses) and by fault
 * link-formapago-not-enforced; what a payment accepts is the link's formaPago.
 */
const SEED_FLAGS = new Set(['aplicaPagoConPuntos', 'aplicaPagoConBitcoin', 'aplicaPagoConQuickPay']);
const STORE_FILE = /sandbox[\\/]store\.ts$/;
const SEED_WORDS = new Set([
  'nombreCompletoContacto',
  'nombreCuenta',
  'nombreComercial',
  'razonSocial',
  'actividadEconomica',
  'direccion',
  'urbanizacion',
  'calle',
  'local',
]);

/**
 * Declarations (by file and name) only a fault, a variant or another screen reads, each with its reason: their
 * mutants are equivalent in the judged run, so they are out by construction, as a `// Stryker disable` comment over
 * them would keep them (a table here leaves the sandbox's lines, and so the seeded sample, where they are). A
 * unit test checks each still names a declaration of its file.
 */
export const PLUMBING_DECLARATIONS: readonly { file: string; name: string; reason: string; control?: true; property?: true }[] = [
  {
    file: 'sandbox/auth.ts',
    name: 'seededActor',
    reason: 'only faults get-transaction-without-auth and 3ds-without-token-accepted reach it (requireAuth optional)',
  },
  {
    file: 'sandbox/transactions.ts',
    name: 'contarSolicitudCompra',
    reason: 'it only counts purchase requests for the test-control stats',
    control: true,
  },
  {
    file: 'sandbox/store.ts',
    name: 'stats',
    reason: 'the purchase counter only the test-control stats read',
    control: true,
    property: true,
  },
  { file: 'sandbox/auth.ts', name: 'AUDIENCIA_PROPIA', reason: 'only fault token-audience-own reads it' },
  { file: 'sandbox/hash.ts', name: 'urlCuatroCampos', reason: 'only fault link-redirect-four-fields calls it' },
  { file: 'sandbox/links.ts', name: 'rutaAusente', reason: 'only fault enlacepago-route-missing acts in it' },
  { file: 'sandbox/respuestas.ts', name: 'esReglaDeCampo', reason: 'only variant errors-422 reads it' },
  { file: 'sandbox/card-fields.ts', name: 'COOKIE', reason: 'only variant pages-session-token reads it' },
  { file: 'sandbox/card-fields.ts', name: 'CAMPO', reason: 'only variant pages-session-token reads it' },
  { file: 'sandbox/card-fields.ts', name: 'PERSONA', reason: 'only variant pages-billing-details reads it' },
  { file: 'sandbox/validate.ts', name: 'SOLO_DIGITOS', reason: 'only fault telefono-digits-only reads it' },
  { file: 'sandbox/html.ts', name: 'paginaNoDisponible', reason: 'only variant screen-unavailable-200 serves it' },
  { file: 'sandbox/links.ts', name: 'finDelDiaUtc', reason: 'only fault vigencia-end-by-date calls it' },
  { file: 'sandbox/purchases/quickpay.ts', name: 'autorizacion', reason: 'only the challenge screen asks it' },
  { file: 'sandbox/purchases/quickpay.ts', name: 'paginaRecibo', reason: 'only variant pages-receipt-in-place renders it' },
  {
    file: 'sandbox/purchases/threeds.ts',
    name: 'codigoDesafio',
    reason: 'only the challenge screen and variant threeds-challenge-code ask a code',
  },
];
const plumbingReason = (reason: string): string => `${reason} (plumbing, off by default; npm run mutation:stryker)`;

/**
 * The plumbing declaration `node` is in `file`, if it is one (a function, a const bound to a value, or with `property`
 * an object's property of that name).
 */
function plumbingDeclaration(node: Node, file: string): string | undefined {
  const property = node.type === 'ObjectProperty';
  const name =
    node.type === 'FunctionDeclaration'
      ? ((node.id as Node | null)?.name as string | undefined)
      : node.type === 'VariableDeclarator' && (node.id as Node).type === 'Identifier'
        ? ((node.id as Node).name as string)
        : property
          ? keyName(node)
          : undefined;
  if (name === undefined) return undefined;
  const entry = PLUMBING_DECLARATIONS.find(
    (d) => d.name === name && (d.property === true) === property && file.replaceAll('\\', '/').endsWith(d.file),
  );
  if (entry === undefined) return undefined;
  return entry.control ? `${entry.reason} (${IGNORE_REASONS.control})` : plumbingReason(entry.reason);
}

/**
 * Arguments (a file's function by name, the argument's place) only a fault or variant reads: `valorEnum(fault, campo,
 * valor)` returns valor unless fault enum-names is on, which alone looks campo's names up.
 */
const SWITCH_ARGUMENTS: Record<string, { at: number; reason: string }> = {
  valorEnum: { at: 1, reason: "only fault enum-names reads the enum's name (views.ts valorEnum)" },
};

/** Files that are test-control plumbing as a whole. */
const CONTROL_FILES = /sandbox[\\/](control|tenants)\.ts$/;
const NETWORK_FILE = /sandbox[\\/]network\.ts$/;
const SCREEN_FILES = /sandbox[\\/]screen-(frame|steps)\.ts$/;

/**
 * Calls (by name) whose arguments at these places are words for people or the form of an error: `t(es, en)` and
 * `texto(ctx, es, en)` (a page's words), `errores(campo, mensaje)`, `x.error(ruta, mensaje)` (a refusal's
 * message), `oauthError(reply, status, error, description)` (the description; the error code stays in),
 * `paginaEstado(titulo, estado, detalle)` (title and detail; the state picks the page).
 */
const WORDING_ARGUMENTS: Record<string, (i: number) => boolean> = {
  t: () => true,
  texto: (i) => i >= 1,
  errores: () => true,
  error: (i) => i >= 1,
  oauthError: (i) => i === 3,
  paginaEstado: (i) => i === 0 || i === 2,
};
const keyName = (p: Node): string | undefined => {
  const key = p.key as Node | undefined;
  return key?.type === 'Identifier' ? (key.name as string) : key?.type === 'StringLiteral' ? (key.value as string) : undefined;
};
const propertyNames = (o: Node): string[] =>
  (o.properties as Node[]).flatMap((p) => (p.type === 'ObjectProperty' ? [keyName(p) ?? ''] : []));

/** True when `path` is wording (see the file's comment): it and everything inside it are ignored. */
function isWording(path: Path): boolean {
  const { node } = path;
  // An error body ({ errores: [...] }) or one of its entries ({ campo, mensaje }).
  if (node.type === 'ObjectExpression') {
    const names = propertyNames(node);
    if (names.includes('errores') || (names.includes('campo') && names.includes('mensaje'))) return true;
    // A status page's words and their tone (html.ts ESTADOS); the state itself is the key, kept.
    if (names.includes('mensaje') && names.includes('tono')) return true;
  }
  if (node.type === 'LogicalExpression' && isNode(node.right) && node.right.type === 'ObjectExpression') {
    const names = propertyNames(node.right);
    if (names.includes('mensaje') && names.includes('tono')) return true;
  }
  if (node.type === 'VariableDeclarator' && (node.id as Node).type === 'Identifier' && (node.id as Node).name === 'CSS') return true;
  // A builder of an error body, `(campo, mensaje) => ({ errores: [...] })`: the body is wording, and so is its builder.
  if (
    node.type === 'ArrowFunctionExpression' &&
    isNode(node.body) &&
    node.body.type === 'ObjectExpression' &&
    propertyNames(node.body).includes('errores')
  )
    return true;
  // A status page's detail made a sentence (html.ts estadoEnPalabras: a capital, a full stop): the detail's words.
  if (node.type === 'VariableDeclarator' && (node.id as Node).type === 'Identifier' && (node.id as Node).name === 'frase') return true;
  // A page's words helper, `const t = (es, en) => texto(ctx, es, en)`: it only picks the language of the words.
  if (
    node.type === 'VariableDeclarator' &&
    (node.id as Node).name === 't' &&
    isNode(node.init) &&
    node.init.type === 'ArrowFunctionExpression' &&
    isNode(node.init.body) &&
    node.init.body.type === 'CallExpression' &&
    (node.init.body.callee as Node).type === 'Identifier' &&
    (node.init.body.callee as Node).name === 'texto'
  )
    return true;
  const parent = path.parentPath?.node;
  if (parent === undefined) return false;
  // A status page's message ({ mensaje, tono }) and an OAuth error's description.
  if (parent.type === 'ObjectProperty' && path.key === 'value') {
    const name = keyName(parent);
    if (name === 'error_description' || name === 'mensajePatron') return true;
    const object = path.parentPath?.parentPath?.node;
    if (name === 'mensaje' && object?.type === 'ObjectExpression' && propertyNames(object).includes('tono')) return true;
  }
  if (parent.type === 'CallExpression' && parent.arguments === path.container && typeof path.key === 'number') {
    const callee = parent.callee as Node;
    // A function of the file called by name; `error` only as a validator's method (`v.error`, `this.v.error`), so
    // neither a reader's `b.texto(campo, rules)` nor a logger's `log.error` is taken for words.
    const name =
      callee.type === 'Identifier' && callee.name !== 'error'
        ? (callee.name as string)
        : callee.type === 'MemberExpression' && /^(v|this\.v)\.error$/.test(memberText(callee))
          ? 'error'
          : undefined;
    const places = name === undefined ? undefined : WORDING_ARGUMENTS[name];
    if (places?.(path.key)) return true;
  }
  return false;
}

/**
 * A const spelt only into wording (`const que = …` used in an error's message alone; `esperado`, read only by the
 * 401's message) is wording too: each of its uses is inside wording, directly or through another such const.
 */
function onlyInWording(path: Path, known = new Map<Node, boolean>()): boolean {
  const { node } = path;
  if (node.type !== 'VariableDeclarator' || (node.id as Node).type !== 'Identifier') return false;
  const answer = known.get(node);
  if (answer !== undefined) return answer;
  known.set(node, true); // while its own uses are read
  const binding = path.scope.getBinding((node.id as Node).name as string);
  const wording =
    binding !== undefined &&
    binding.kind === 'const' &&
    binding.path.node === node &&
    binding.referencePaths.length > 0 &&
    binding.referencePaths.every((ref) => {
      for (let p = ref.parentPath; p !== null; p = p.parentPath) {
        if (isWording(p)) return true;
        if (p.node.type === 'VariableDeclarator') return onlyInWording(p, known);
        if (/Statement$|Function|^Program$/.test(p.node.type)) return false;
      }
      return false;
    });
  known.set(node, wording);
  return wording;
}

/** `a.b.c` of a member chain of identifiers and `this` ('' for anything else). */
function memberText(n: Node): string {
  if (n.type === 'Identifier') return n.name as string;
  if (n.type === 'ThisExpression') return 'this';
  if (n.type === 'MemberExpression' && (n.property as Node).type === 'Identifier') {
    const object = memberText(n.object as Node);
    return object === '' ? '' : `${object}.${(n.property as Node).name as string}`;
  }
  return '';
}
const SWITCHES = new Set(['fault', 'variant']);

const isNode = (n: unknown): n is Node => typeof n === 'object' && n !== null && typeof (n as Node).type === 'string';

/** `x.options.screen === 'frame'`: a hosted screen other than the default (html) is a sandbox setting too. */
const isScreenTest = (n: Node, operator: string): boolean =>
  n.type === 'BinaryExpression' &&
  n.operator === operator &&
  (n.right as Node).type === 'StringLiteral' &&
  (n.right as Node).value !== 'html' &&
  // `x.options.screen`, or a function's `pantalla` (the screen served, passed in).
  (((n.left as Node).type === 'MemberExpression' &&
    ((n.left as Node).property as Node).type === 'Identifier' &&
    ((n.left as Node).property as Node).name === 'screen') ||
    ((n.left as Node).type === 'Identifier' && (n.left as Node).name === 'pantalla'));

/**
 * `x.fault('id')`, `x.variant('id')`, `variant('id')`, `x.options.screen === 'id'`, and a validation's switch
 * (`this.v.ajustes.flexible`: validate.ts AjustesValidacion, each member a variant's or a fault's).
 */
function isSwitchCall(n: Node): boolean {
  if (isScreenTest(n, '===')) return true;
  if (n.type === 'MemberExpression' && /(^|\.)ajustes\.\w+$/.test(memberText(n))) return true;
  // `variant?.('id')` too: a view given the variant switch as an optional parameter.
  if (n.type !== 'CallExpression' && n.type !== 'OptionalCallExpression') return false;
  const args = n.arguments as Node[];
  if (isSwitchHelper(n)) return true;
  if (args.length !== 1 || args[0]?.type !== 'StringLiteral') return false;
  const callee = n.callee as Node;
  if (callee.type === 'Identifier') return SWITCHES.has(callee.name as string);
  return (
    callee.type === 'MemberExpression' &&
    (callee.property as Node).type === 'Identifier' &&
    SWITCHES.has((callee.property as Node).name as string)
  );
}

/**
 * A call of a file's own function whose body only returns a switch (`pideCodigo(ctx)`: the challenge screen or a
 * variant; `enIngles(ctx)`, exported), read from the file's top-level declarations when the Program is visited —
 * before the instrumenter rewrites any function body with its mutants.
 */
let helperNames = new Set<string>();
function isSwitchHelper(call: Node): boolean {
  const callee = call.callee as Node;
  return callee.type === 'Identifier' && helperNames.has(callee.name as string);
}

/** The names of a program's top-level functions (exported or not) whose body only returns a switch. */
function switchHelpers(program: Node): Set<string> {
  const names = new Set<string>();
  // A helper may return another helper's switch: read until nothing new is found.
  for (let grew = true; grew; ) {
    grew = false;
    for (const top of program.body as Node[]) {
      const f = top.type === 'ExportNamedDeclaration' && isNode(top.declaration) ? top.declaration : top;
      const name = f.type === 'FunctionDeclaration' ? ((f.id as Node | null)?.name as string | undefined) : undefined;
      if (name === undefined || names.has(name)) continue;
      const body = (f.body as Node).body as Node[];
      helperNames = names;
      if (body.length === 1 && body[0]?.type === 'ReturnStatement' && isNode(body[0].argument) && anySwitch(body[0].argument)) {
        names.add(name);
        grew = true;
      }
    }
  }
  return names;
}

/**
 * The names of a program's consts whose value is on only when a switch is (`const porCuenta = … &&
 * ctx.variant('…')`), read when the Program is visited: by the time a later `if (porCuenta)` is visited the
 * instrumenter has rewritten the declaration with its mutants. A name declared twice counts only if both are.
 */
let switchedConsts = new Set<string>();
function constsOfSwitches(program: Node): Set<string> {
  const declared = new Map<string, Node[]>();
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (!isNode(n)) return;
    if (n.type === 'VariableDeclaration' && n.kind === 'const')
      for (const d of n.declarations as Node[])
        if ((d.id as Node).type === 'Identifier' && isNode(d.init)) {
          const name = (d.id as Node).name as string;
          declared.set(name, [...(declared.get(name) ?? []), d.init]);
        }
    for (const [k, v] of Object.entries(n)) if (k !== 'loc' && k !== 'leadingComments' && k !== 'trailingComments') walk(v);
  };
  walk(program);
  const names = new Set<string>();
  const on = (n: Node): boolean =>
    isSwitchCall(n) ||
    (n.type === 'Identifier' && names.has(n.name as string)) ||
    (n.type === 'LogicalExpression' && n.operator === '&&' && (on(n.left as Node) || on(n.right as Node))) ||
    (n.type === 'LogicalExpression' && n.operator === '||' && on(n.left as Node) && on(n.right as Node));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, inits] of declared)
      if (!names.has(name) && inits.every(on)) {
        names.add(name);
        grew = true;
      }
  }
  return names;
}

/** A switch, or an `||` of switches only. */
const anySwitch = (n: Node): boolean =>
  isSwitchCall(n) || (n.type === 'LogicalExpression' && n.operator === '||' && anySwitch(n.left as Node) && anySwitch(n.right as Node));

/** `if (…) throw new Error('sandbox option …')`: the embedder's options checked, outside the spec. */
function isOptionCheck(n: Node): boolean {
  if (n.type !== 'IfStatement' || !isNode(n.consequent)) return false;
  const c = n.consequent.type === 'BlockStatement' ? ((n.consequent.body as Node[])[0] ?? n.consequent) : n.consequent;
  const thrown =
    c.type === 'ThrowStatement' && isNode(c.argument) && c.argument.type === 'NewExpression'
      ? (c.argument.arguments as Node[])[0]
      : undefined;
  const text =
    thrown?.type === 'StringLiteral'
      ? (thrown.value as string)
      : thrown?.type === 'TemplateLiteral'
        ? (((thrown.quasis as Node[])[0]?.value as { raw: string } | undefined)?.raw ?? '')
        : '';
  return text.startsWith('sandbox option');
}

/** `options.x` (or `options.x?.…` / `options.x?.f()`): an embedder's option, a parameter of the factory. */
function isOptionRead(n: Node, path: Path): boolean {
  let m: Node = n;
  while (m.type === 'OptionalCallExpression' || m.type === 'CallExpression') m = m.callee as Node;
  while ((m.type === 'MemberExpression' || m.type === 'OptionalMemberExpression') && isNode(m.object) && m.object.type !== 'Identifier')
    m = m.object as Node;
  if (m.type !== 'MemberExpression' && m.type !== 'OptionalMemberExpression') return false;
  const object = m.object as Node;
  return object.type === 'Identifier' && object.name === 'options' && path.scope.getBinding('options')?.kind === 'param';
}

/**
 * A default, test or choice made on an embedder's option (`options.logger ?? false`, `options.control === false ?
 * …`, `host === '::'` for `const host = options.host ?? …`): outside the spec, and fixed in the judged run.
 */
function testsAnOption(n: Node, path: Path): boolean {
  const operand = (o: unknown): boolean => {
    if (!isNode(o)) return false;
    if (isOptionRead(o, path)) return true;
    if (o.type !== 'Identifier') return false;
    const binding = path.scope.getBinding(o.name as string);
    const decl = binding?.path.node;
    return (
      binding?.kind === 'const' &&
      decl?.type === 'VariableDeclarator' &&
      isNode(decl.init) &&
      decl.init.type === 'LogicalExpression' &&
      isOptionRead(decl.init.left as Node, path)
    );
  };
  if (n.type === 'LogicalExpression') return operand(n.left);
  if (n.type === 'BinaryExpression') return operand(n.left) || operand(n.right);
  if (n.type === 'ConditionalExpression' || n.type === 'IfStatement') {
    const test = n.test as Node;
    return operand(test) || ((test.type === 'BinaryExpression' || test.type === 'LogicalExpression') && testsAnOption(test, path));
  }
  return false;
}

/** True when `n` is on only when a fault or variant is (a switch, a const bound to one, `&&` of one with anything). */
function onlyWhenSwitched(n: Node, path: Path): boolean {
  if (isSwitchCall(n)) return true;
  if (n.type === 'Identifier') {
    if (switchedConsts.has(n.name as string)) return true;
    const binding = path.scope.getBinding(n.name as string);
    const decl = binding?.path.node;
    return binding?.kind === 'const' && decl?.type === 'VariableDeclarator' && isNode(decl.init) && onlyWhenSwitched(decl.init, path);
  }
  if (n.type === 'LogicalExpression' && n.operator === '&&')
    return onlyWhenSwitched(n.left as Node, path) || onlyWhenSwitched(n.right as Node, path);
  if (n.type === 'LogicalExpression' && n.operator === '||')
    return onlyWhenSwitched(n.left as Node, path) && onlyWhenSwitched(n.right as Node, path);
  return false;
}

/** True when `n` is off only when a fault or variant is on (`!switch`, `||` of one with anything). */
function offOnlyWhenSwitched(n: Node, path: Path): boolean {
  if (n.type === 'UnaryExpression' && n.operator === '!') return onlyWhenSwitched(n.argument as Node, path);
  if (isScreenTest(n, '!==')) return true;
  if (n.type === 'LogicalExpression' && n.operator === '||')
    return offOnlyWhenSwitched(n.left as Node, path) || offOnlyWhenSwitched(n.right as Node, path);
  // `!fault('a') && !fault('b')`: on by default, off when either is.
  if (n.type === 'LogicalExpression' && n.operator === '&&')
    return offOnlyWhenSwitched(n.left as Node, path) && offOnlyWhenSwitched(n.right as Node, path);
  return false;
}

const exits = (n: Node): boolean =>
  n.type === 'ReturnStatement' ||
  n.type === 'ThrowStatement' ||
  (n.type === 'BlockStatement' && (n.body as Node[]).length > 0 && exits((n.body as Node[]).at(-1) as Node));

function reasonFor(path: Path): string | undefined {
  const { node } = path;
  if (node.type === 'Program') {
    helperNames = switchHelpers(node);
    switchedConsts = constsOfSwitches(node);
    const file = path.hub?.file?.opts?.filename ?? '';
    if (CONTROL_FILES.test(file)) return IGNORE_REASONS.control;
    if (NETWORK_FILE.test(file)) return IGNORE_REASONS.network;
    if (SCREEN_FILES.test(file)) return IGNORE_REASONS.screens;
  }
  if (isWording(path) || onlyInWording(path)) return IGNORE_REASONS.wording;
  const call = path.parentPath?.node;
  if (call?.type === 'CallExpression' && call.arguments === path.container && (call.callee as Node).type === 'Identifier') {
    const argument = SWITCH_ARGUMENTS[(call.callee as Node).name as string];
    if (argument !== undefined && argument.at === path.key) return plumbingReason(argument.reason);
  }
  if (
    ((node.type === 'StringLiteral' && SEED_WORDS.has(keyName(path.parentPath?.node ?? node) ?? '')) ||
      (node.type === 'BooleanLiteral' && SEED_FLAGS.has(keyName(path.parentPath?.node ?? node) ?? ''))) &&
    path.key === 'value' &&
    path.parentPath?.node.type === 'ObjectProperty' &&
    STORE_FILE.test(path.hub?.file?.opts?.filename ?? '')
  )
    return IGNORE_REASONS.seed;
  const declared = plumbingDeclaration(node, path.hub?.file?.opts?.filename ?? '');
  if (declared !== undefined) return declared;
  if (isOptionCheck(node)) return IGNORE_REASONS.options;
  if (node.type === 'FunctionDeclaration' && (node.id as Node | null)?.name === 'pantalla') return IGNORE_REASONS.plumbing;
  if (node.type === 'FunctionDeclaration' && (node.id as Node | null)?.name === 'resolveOptions') return IGNORE_REASONS.options;
  if (testsAnOption(node, path)) return IGNORE_REASONS.options;
  // Logging: console.* and *.log.* statements.
  if (node.type === 'ExpressionStatement' && isNode(node.expression) && node.expression.type === 'CallExpression') {
    let callee = node.expression.callee as Node;
    while (callee.type === 'MemberExpression') {
      const object = callee.object as Node;
      const property = callee.property as Node;
      if ((object.type === 'Identifier' && object.name === 'console') || (property.type === 'Identifier' && property.name === 'log'))
        return IGNORE_REASONS.logging;
      callee = object;
    }
  }
  // The switch itself (and a const bound to it), wherever it stands.
  if (isSwitchCall(node)) return IGNORE_REASONS.plumbing;
  // An `||` of switches only (`ctx.options.screen === 'challenge' || ctx.variant('…')`): off while each is.
  if (anySwitch(node)) return IGNORE_REASONS.plumbing;
  if (node.type === 'UnaryExpression' && node.operator === '!' && isNode(node.argument) && isSwitchCall(node.argument))
    return IGNORE_REASONS.plumbing;
  if (isScreenTest(node, '!==')) return IGNORE_REASONS.plumbing;
  // `x && ctx.fault('…')`: false whatever x is while the switch is off, so x's mutants are the switch's plumbing.
  if (node.type === 'LogicalExpression' && node.operator === '&&' && onlyWhenSwitched(node, path)) return IGNORE_REASONS.plumbing;
  const parent = path.parentPath?.node;
  if (!parent || !path.parentPath) return undefined;
  // The test of an if or a ?: that a switch decides, and the branch only a switch takes.
  if ((parent.type === 'IfStatement' || parent.type === 'ConditionalExpression') && isNode(parent.test)) {
    const on = onlyWhenSwitched(parent.test, path);
    const off = offOnlyWhenSwitched(parent.test, path);
    if (path.key === 'test' && (on || off)) return IGNORE_REASONS.plumbing;
    if (path.key === 'consequent' && on) return IGNORE_REASONS.plumbing;
    if (path.key === 'alternate' && off) return IGNORE_REASONS.plumbing;
  }
  // `if (!variant('x')) return;` — what follows in the block runs only with the variant.
  if (typeof path.key === 'number' && Array.isArray(path.container)) {
    const before = (path.container as unknown[]).slice(0, path.key).filter(isNode);
    const guard = before.some(
      (s) =>
        s.type === 'IfStatement' &&
        s.alternate == null &&
        isNode(s.test) &&
        isNode(s.consequent) &&
        exits(s.consequent) &&
        offOnlyWhenSwitched(s.test, path),
    );
    if (guard) return IGNORE_REASONS.plumbing;
  }
  return undefined;
}

/** The ignorer as a value, for the enumeration that runs the instrumenter directly. */
export const sandboxPlumbing = { shouldIgnore: (path: unknown): string | undefined => reasonFor(path as Path) };

export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, 'sandbox-plumbing', sandboxPlumbing)];

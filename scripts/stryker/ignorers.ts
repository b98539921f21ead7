/**
 * The Stryker ignorer of `npm run mutation:stryker` (scripts/mutation-stryker.ts): keeps the sandbox's plumbing out of
 * the mutants by construction, so that what is sampled is the behaviour the spec describes. Plumbing is
 *  - a fault or variant check (`ctx.fault('…')`, `ctx.variant('…')`, `variant('…')`, a const bound to one, and the
 *    hosted screen served, `ctx.options.screen === 'frame'`: SANDBOX_SCREEN) and the code only a fault, variant or
 *    other screen runs: off in the default configuration, so its mutants are equivalent there (a mutant forcing a
 *    variant on is spec-valid by the catalogue's own contract; the other screens are judged by .ci/run's screen runs);
 *  - the test-control API (control.ts, tenants.ts: /__sandbox, outside the spec);
 *  - logging (`console.*`, `*.log.*`).
 * Each reason names its kind, so the command counts what each removes.
 */
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** The parts of babel's NodePath this ignorer reads (the API types it opaque). */
interface Path {
  node: Node;
  key: string | number | null;
  parentPath: Path | null;
  container?: unknown;
  scope: { getBinding(name: string): { path: { node: Node }; kind: string } | undefined };
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
} as const;

/** Files that are test-control plumbing as a whole. */
const CONTROL_FILES = /sandbox[\\/](control|tenants)\.ts$/;
const SWITCHES = new Set(['fault', 'variant']);

const isNode = (n: unknown): n is Node => typeof n === 'object' && n !== null && typeof (n as Node).type === 'string';

/** `x.options.screen === 'frame'`: a hosted screen other than the default (html) is a sandbox setting too. */
const isScreenTest = (n: Node, operator: string): boolean =>
  n.type === 'BinaryExpression' &&
  n.operator === operator &&
  (n.right as Node).type === 'StringLiteral' &&
  (n.right as Node).value !== 'html' &&
  (n.left as Node).type === 'MemberExpression' &&
  ((n.left as Node).property as Node).type === 'Identifier' &&
  ((n.left as Node).property as Node).name === 'screen';

/** `x.fault('id')`, `x.variant('id')`, `variant('id')`, `x.options.screen === 'id'`. */
function isSwitchCall(n: Node): boolean {
  if (isScreenTest(n, '===')) return true;
  if (n.type !== 'CallExpression') return false;
  const args = n.arguments as Node[];
  if (args.length !== 1 || args[0]?.type !== 'StringLiteral') return false;
  const callee = n.callee as Node;
  if (callee.type === 'Identifier') return SWITCHES.has(callee.name as string);
  return (
    callee.type === 'MemberExpression' &&
    (callee.property as Node).type === 'Identifier' &&
    SWITCHES.has((callee.property as Node).name as string)
  );
}

/** True when `n` is on only when a fault or variant is (a switch, a const bound to one, `&&` of one with anything). */
function onlyWhenSwitched(n: Node, path: Path): boolean {
  if (isSwitchCall(n)) return true;
  if (n.type === 'Identifier') {
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
  return false;
}

const exits = (n: Node): boolean =>
  n.type === 'ReturnStatement' ||
  n.type === 'ThrowStatement' ||
  (n.type === 'BlockStatement' && (n.body as Node[]).length > 0 && exits((n.body as Node[]).at(-1) as Node));

function reasonFor(path: Path): string | undefined {
  const { node } = path;
  if (node.type === 'Program' && CONTROL_FILES.test(path.hub?.file?.opts?.filename ?? '')) return IGNORE_REASONS.control;
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
  if (node.type === 'UnaryExpression' && node.operator === '!' && isNode(node.argument) && isSwitchCall(node.argument))
    return IGNORE_REASONS.plumbing;
  if (isScreenTest(node, '!==')) return IGNORE_REASONS.plumbing;
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

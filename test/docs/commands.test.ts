/**
 * Copy-paste must work: every command the docs show names something that exists — each `npm run X` a
 * script of package.json, each `payment-conformance X` a command of bin/payment-conformance.js taking the options
 * shown — every installed command answers --help, and the sandbox's curl walkthrough runs as shown against a sandbox.
 */
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createSandbox, type Sandbox } from '../../sandbox/index.ts';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
const run = promisify(execFile);

const PAGES = [
  'README.md',
  'sandbox/README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);

/** Fenced code blocks and inline code spans of a page: where commands are shown. */
function codeOf(page: string): string[] {
  const text = read(page);
  const blocks = [...text.matchAll(/^```[a-z]*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  const inline = [...text.replace(/^```[a-z]*\n[\s\S]*?^```/gm, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return [...blocks, ...inline];
}

const shown = PAGES.flatMap((page) => codeOf(page).map((code) => ({ page, code })));

/** Each `payment-conformance <command> …` shown, with the options it passes (up to the end of the command). */
const installed = shown.flatMap(({ page, code }) =>
  [...code.matchAll(/payment-conformance ([a-z][\w-]*)([^\n;&|#`]*)/g)].map((m) => ({
    page,
    command: m[1]!,
    options: [...m[2]!.matchAll(/(?:^|\s)(--[a-z-]+)/g)].map((o) => o[1]!),
  })),
);

const help = new Map<string, string>();

beforeAll(async () => {
  for (const command of ['run', 'discover', 'sandbox', 'mutation', 'merge']) {
    const { stdout } = await run(process.execPath, ['bin/payment-conformance.js', command, '--help'], { cwd: ROOT });
    help.set(command, stdout);
  }
});

describe('the commands the docs show', () => {
  it('every `npm run X` is a script of package.json', () => {
    const named = shown.flatMap(({ page, code }) => [...code.matchAll(/npm run ([\w:-]+)/g)].map((m) => ({ page, script: m[1]! })));
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((n) => !scripts.includes(n.script))).toEqual([]);
  });

  it('every installed command answers --help with its usage', () => {
    for (const [command, text] of help) expect(text, command).toMatch(new RegExp(`^usage: payment-conformance ${command}\\b`));
  });

  it('every `payment-conformance X` is a command, with options it takes', () => {
    expect(installed.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const { page, command, options } of installed) {
      const text = help.get(command);
      if (text === undefined) {
        problems.push(`${page}: payment-conformance ${command} is no command`);
        continue;
      }
      // Options not in the help are the script's own (sandbox flags, merge's --out, vitest's -t): listed in the usage line.
      for (const option of options) if (!text.includes(option)) problems.push(`${page}: payment-conformance ${command} takes no ${option}`);
    }
    expect(problems).toEqual([]);
  });

  it('every YAML block (the CI examples) parses', () => {
    const blocks = PAGES.flatMap((page) => [...read(page).matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)].map((m) => ({ page, yaml: m[1]! })));
    expect(blocks.length).toBeGreaterThan(3);
    for (const { page, yaml } of blocks) expect(() => parseYaml(yaml), page).not.toThrow();
  });

  it('an unknown command is refused with the usage (exit 2)', async () => {
    const err = await run(process.execPath, ['bin/payment-conformance.js', 'nonsense'], { cwd: ROOT }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(err).toMatchObject({ code: 2 });
    expect((err as { stderr: string }).stderr).toContain('unknown command "nonsense"');
  });
});

describe('the curl walkthrough of sandbox/README.md', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0, mode: 'development' });
  });
  afterAll(() => sandbox.close());

  it('runs as shown, with the outcomes shown', async () => {
    const page = read('sandbox/README.md');
    const section = page.slice(page.indexOf('## curl walkthrough'));
    const script = /^```sh\n([\s\S]*?)^```/m.exec(section)![1]!;
    expect(script).toContain('S=http://127.0.0.1:4010');
    // Only the origin differs: a sandbox on a free port, not 4010.
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script.replace('S=http://127.0.0.1:4010', `S=${sandbox.origin}`)], {
      timeout: 30_000,
    });
    expect(stdout).toMatch(/^token: \S{8}…$/m);
    expect(stdout).toMatch(/^302 -> http:\/\/127\.0\.0\.1:\d+\/pagar\/\d+$/m);
    expect(stdout).toMatch(/^303 -> https:\/\/merchant\.test\/gracias\?.*esAprobada=false/m);
    expect(stdout).toMatch(/^410$/m);
    expect(stdout).toContain('"cantidadIntentoPagoFallidos":1');
    expect(stdout).toMatch(/^303 -> https:\/\/merchant\.test\/3ds\?.*esAprobada=true/m);
    expect(stdout).toContain('"datosAdicionales":{"pedido":"7"}');
  });
});

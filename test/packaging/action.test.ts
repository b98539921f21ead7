/**
 * action.yml, the reusable GitHub composite action: valid YAML with the inputs, outputs and steps a merchant's
 * workflow relies on (docs/ci.md), each output read from a step that exists, each input used.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface Action {
  name: string;
  description: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: { id?: string; name?: string; shell?: string; run?: string; env?: Record<string, string>; if?: string }[] };
}

const text = readFileSync(new URL('../../action.yml', import.meta.url), 'utf8');
const action = parse(text) as Action;

describe('action.yml', () => {
  it('is a composite action with a name and description', () => {
    expect(action.name).toMatch(/\S/);
    expect(action.description).toMatch(/\S/);
    expect(action.runs.using).toBe('composite');
    // A composite action's run steps must each name their shell.
    for (const step of action.runs.steps) if (step.run) expect(step.shell, step.name).toBe('bash');
  });

  it('takes the target and its credentials, and the common settings', () => {
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining([
        'api-base-url',
        'auth-url',
        'client-id',
        'client-secret',
        'account-user',
        'account-password',
        'env-file',
        'report-dir',
        'baseline',
        'fail-on',
        'payer',
        'shard',
      ]),
    );
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(input.description, name).toMatch(/\S/);
      expect(text.includes(`inputs.${name} }}`), `input ${name} is never used`).toBe(true);
    }
  });

  it('gives the counts as outputs, each from a step that sets it', () => {
    expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(['passed', 'failed', 'warned', 'skipped', 'errored']));
    const ids = new Set(action.runs.steps.map((s) => s.id).filter(Boolean));
    for (const [name, output] of Object.entries(action.outputs)) {
      const m = /^\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}$/.exec(output.value);
      if (!m) continue;
      expect(ids.has(m[1]!), `output ${name} reads step ${m[1]}, which does not exist`).toBe(true);
      const step = action.runs.steps.find((s) => s.id === m[1])!;
      expect(step.if, 'the counts are read even when the run failed').toBe('always()');
      expect(step.run).toContain(`"${m[2]}="`);
    }
  });

  it("runs the installed command from the action's own folder", () => {
    const runs = action.runs.steps.map((s) => s.run ?? '').join('\n');
    expect(runs).toContain('$GITHUB_ACTION_PATH/bin/payment-conformance.js');
    expect(runs).toMatch(/npm ci .*--prefix "\$GITHUB_ACTION_PATH"/);
  });

  it('never echoes a secret input into a command line', () => {
    for (const step of action.runs.steps) expect(step.run ?? '', step.name).not.toMatch(/inputs\.(client-secret|account-password)/);
  });
});

/**
 * Every workflow of docs/ci.md works as pasted: checked out, Node set up, the package installed before it is run,
 * the settings from the same `vars.`/`secrets.` names, only inputs the action has, and the folder the run writes is
 * the one published and uploaded (with the permissions the JUnit step needs).
 */
describe('the CI examples of docs/ci.md', () => {
  interface Step {
    uses?: string;
    run?: string;
    with?: Record<string, unknown>;
    env?: Record<string, unknown>;
  }
  interface Job {
    steps?: Step[];
    permissions?: Record<string, string>;
    script?: string[];
    artifacts?: { paths?: string[]; reports?: { junit?: string } };
  }
  interface Workflow {
    on?: unknown;
    permissions?: Record<string, string>;
    jobs?: Record<string, Job>;
  }

  const page = readFileSync(new URL('../../docs/ci.md', import.meta.url), 'utf8');
  const blocks = [...page.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  const github = blocks.map((b) => parse(b) as Workflow).filter((w) => w.jobs !== undefined);
  const gitlab = blocks.map((b) => parse(b) as Record<string, Job>).filter((w) => !('jobs' in w));

  /** The folder a command line writes its reports to: --out of a merge, --report-dir, else the default. */
  function writes(command: string): string | undefined {
    if (!/payment-conformance (run|merge)\b/.test(command)) return undefined;
    // A value may hold a GitHub expression with spaces: reports/shard-${{ matrix.shard }}.
    const value = (option: string) => new RegExp(`${option}\\s+((?:\\$\\{\\{[^}]*\\}\\}|\\S)+)`).exec(command)?.[1];
    const dir = value('--out') ?? value('--report-dir') ?? 'reports';
    return dir.replace(/\/$/, '');
  }
  const reportDirOf = (step: Step): string | undefined =>
    step.uses?.includes('payment-service-conformance')
      ? String(step.with?.['report-dir'] ?? action.inputs['report-dir']!.default)
      : step.run
        ? writes(step.run)
        : undefined;

  it('are whole workflows: GitHub ones with a trigger and jobs, GitLab ones with a script', () => {
    expect(github.length).toBeGreaterThanOrEqual(4);
    expect(gitlab.length).toBeGreaterThanOrEqual(3);
    for (const w of github) expect(w.on, 'a trigger').toBeDefined();
    for (const w of gitlab) for (const [name, job] of Object.entries(w)) expect(job.script, name).toBeDefined();
  });

  it('check out the repository, set up Node and install the package before running it', () => {
    for (const w of github) {
      for (const [name, job] of Object.entries(w.jobs!)) {
        const steps = job.steps ?? [];
        const at = (match: (s: Step) => boolean) => steps.findIndex(match);
        const checkout = at((s) => s.uses?.startsWith('actions/checkout@') === true);
        const node = at((s) => s.uses?.startsWith('actions/setup-node@') === true);
        const install = at((s) => /npm install .*"\$CONFORMANCE_PACKAGE"/.test(s.run ?? ''));
        const runs = at((s) => /npx payment-conformance/.test(s.run ?? '') || s.uses?.includes('payment-service-conformance') === true);
        expect(runs, `${name} runs the suite`).toBeGreaterThanOrEqual(0);
        expect(checkout, `${name}: actions/checkout`).toBe(0);
        expect(node, `${name}: actions/setup-node`).toBeGreaterThan(checkout);
        if (!steps[runs]!.uses) expect(install, `${name}: the package installed before it runs`).toBeGreaterThan(node);
        if (install >= 0) expect(install).toBeLessThan(runs);
      }
    }
  });

  it('give the post the permissions it needs, and publish and upload the folder the run writes', () => {
    for (const w of github) {
      for (const [name, job] of Object.entries(w.jobs!)) {
        const steps = job.steps ?? [];
        const dirs = new Set(steps.map(reportDirOf).filter((d): d is string => d !== undefined));
        for (const step of steps) {
          if (step.uses?.startsWith('mikepenz/action-junit-report@')) {
            const permissions = { ...w.permissions, ...job.permissions };
            expect(permissions, name).toMatchObject({ checks: 'write', contents: 'read' });
            const path = String(step.with?.['report_paths']);
            expect(
              [...dirs].map((d) => `${d}/junit.xml`),
              `${name} publishes ${path}`,
            ).toContain(path);
          }
          if (step.uses?.startsWith('actions/upload-artifact@')) {
            const path = String(step.with?.['path']).replace(/\/$/, '');
            expect([...dirs], `${name} uploads ${path}`).toContain(path);
          }
        }
        if (dirs.size > 0)
          expect(
            steps.some((s) => s.uses?.startsWith('actions/upload-artifact@')),
            `${name} keeps its reports`,
          ).toBe(true);
      }
    }
    for (const w of gitlab) {
      for (const [name, job] of Object.entries(w)) {
        const dirs = (job.script ?? []).flatMap((line) =>
          [...line.matchAll(/npx payment-conformance (?:run|merge)[^\n]*/g)].map((m) => writes(m[0])!),
        );
        const paths = (job.artifacts?.paths ?? []).map((p) => p.replace(/\/$/, ''));
        // A shard's folder lies under the uploaded reports/.
        for (const dir of dirs)
          expect(
            paths.some((p) => dir === p || dir.startsWith(`${p}/`)),
            `${name} keeps ${dir}`,
          ).toBe(true);
        if (job.artifacts?.reports?.junit) expect(dirs.map((d) => `${d}/junit.xml`)).toContain(job.artifacts.reports.junit);
      }
    }
  });

  it('pass the account and webhook settings to every remote-capable run, with the same names as the action', () => {
    const inputs = Object.keys(action.inputs);
    for (const w of github) {
      for (const job of Object.values(w.jobs!)) {
        for (const step of job.steps ?? []) {
          if (step.uses?.includes('payment-service-conformance')) {
            for (const key of Object.keys(step.with ?? {})) expect(inputs, `input ${key}`).toContain(key);
            expect(Object.keys(step.with ?? {})).toEqual(
              expect.arrayContaining(['account-user', 'account-password', 'token-audience', 'webhook-public-url']),
            );
          } else if (/npx payment-conformance run/.test(step.run ?? '')) {
            expect(Object.keys(step.env ?? {})).toEqual(
              expect.arrayContaining([
                'API_BASE_URL',
                'AUTH_URL',
                'CLIENT_ID',
                'CLIENT_SECRET',
                'ACCOUNT_USER',
                'ACCOUNT_PASSWORD',
                'TOKEN_AUDIENCE',
                'WEBHOOK_PUBLIC_URL',
              ]),
            );
          }
        }
      }
    }
    // One name, one place: a setting read as vars.X in one example is never secrets.X in another (nor in action.yml).
    const uses = [...`${page}\n${text}`.matchAll(/\$\{\{ (vars|secrets)\.([A-Z_]+)/g)].map((m) => [m[2]!, m[1]!] as const);
    const where = new Map<string, Set<string>>();
    for (const [name, kind] of uses) where.set(name, new Set([...(where.get(name) ?? []), kind]));
    for (const [name, kinds] of where) expect([...kinds], name).toEqual([/SECRET|PASSWORD/.test(name) ? 'secrets' : 'vars']);
    // Each action input that is a setting is passed on as that setting.
    for (const [input, variable] of [
      ['token-audience', 'TOKEN_AUDIENCE'],
      ['webhook-public-url', 'WEBHOOK_PUBLIC_URL'],
      ['account-user', 'ACCOUNT_USER'],
      ['account-password', 'ACCOUNT_PASSWORD'],
      ['receiver-port', 'RECEIVER_PORT'],
    ]) {
      const step = action.runs.steps.find((s) => s.id === 'run')!;
      expect(step.env?.[variable!], input).toBe(`\${{ inputs.${input} }}`);
    }
  });

  it('the action writes where the examples look, and says shards split by test count', () => {
    expect(action.inputs['report-dir']!.default).toBe('reports');
    expect(action.inputs['shard']!.description).toMatch(/split by test count/);
  });
});

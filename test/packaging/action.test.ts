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
      expect.arrayContaining(['api-base-url', 'auth-url', 'client-id', 'client-secret', 'account-user', 'account-password', 'env-file', 'report-dir', 'baseline', 'fail-on', 'payer', 'shard']),
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

  it('runs the installed command from the action\'s own folder', () => {
    const runs = action.runs.steps.map((s) => s.run ?? '').join('\n');
    expect(runs).toContain('$GITHUB_ACTION_PATH/bin/payment-conformance.js');
    expect(runs).toMatch(/npm ci .*--prefix "\$GITHUB_ACTION_PATH"/);
  });

  it('never echoes a secret input into a command line', () => {
    for (const step of action.runs.steps) expect(step.run ?? '', step.name).not.toMatch(/inputs\.(client-secret|account-password)/);
  });
});

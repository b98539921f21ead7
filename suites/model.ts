/**
 * The runner the model-based suites share (link-model.test.ts, transaction-model.test.ts): fast-check's
 * `fc.commands` + `fc.asyncModelRun` over the target, with the run's seed, a few runs (the target is real: every
 * command is HTTP), and a failure that carries the shrunk command sequence, the seed and the one command that
 * replays it. A command sequence is replayed exactly with FC_SEED, FC_PATH and FC_REPLAY_PATH (fast-check's
 * record of which commands ran, needed because shrinking drops commands that did not run).
 */
import fc from 'fast-check';
import { CheckFailure, counterexampleFound, type TestHandle } from '../harness/index.ts';

/** One seed per run when FC_SEED is unset, so every model of the run replays with the same one. */
const RANDOM_SEED = (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;

function fromEnv(name: string, pattern: RegExp, example: string): string | undefined {
  const value = process.env[name]?.trim();
  if (value === undefined || value === '') return undefined;
  if (!pattern.test(value))
    throw new Error(
      `${name} must be what a failing model test printed (example: ${name}=${example}); got "${value}". Unset it to ` +
        `explore instead of replaying.`,
    );
  return value;
}

/** FC_PATH (fast-check's path to the counterexample) and FC_REPLAY_PATH (its record of the commands that ran). */
const PATH = fromEnv('FC_PATH', /^\d+(:\d+)*$/, '4:1:0');
const REPLAY_PATH = fromEnv('FC_REPLAY_PATH', /^[A-Za-z0-9+/=:_-]+$/, 'CCCCCCAAB:B');

/** A command of a model: what it does to the model (`check`) and to the target (`run`), and how it prints. */
export type ModelCommand<M extends object, R> = fc.AsyncCommand<M, R, false>;

export interface ModelSpec<P, M extends object, R> {
  file: string;
  /** The test's full name (what the replay command selects with -t). */
  name: string;
  /** Clauses reported when the failure carries none of its own. */
  clauses: string[];
  statement: string;
  /** Setup parameters (e.g. the link's limits), shrunk along with the commands. */
  params: fc.Arbitrary<P>;
  commands: fc.Arbitrary<ModelCommand<M, R>>[];
  maxCommands: number;
  /** Builds the model and the real system for one run (e.g. creates the link). */
  setup: (params: P) => Promise<{ model: M; real: R }>;
  /** Runs on the embedded sandbox / on a remote target (FC_NUM_RUNS lowers both). */
  runs: { embedded: number; remote: number };
}

/** The one command that reruns this model test alone, against the same target (the sandbox's fault repeated). */
export function replayCommand(t: TestHandle, file: string, name: string, seed: number, path?: string, replayPath?: string): string {
  const pattern = name.replace(/[^A-Za-z0-9 .:-]/g, '.');
  const fault = t.run.target.kind === 'embedded' && t.run.config.sandbox.fault ? `SANDBOX_FAULT=${t.run.config.sandbox.fault} ` : '';
  const replay = path ? ` FC_PATH=${path}${replayPath ? ` FC_REPLAY_PATH='${replayPath}'` : ''}` : '';
  return `${fault}FC_SEED=${seed}${replay} npm run conformance -- ${file} -t '${pattern}'`;
}

/**
 * Runs the model. The first disagreement between model and target (a CheckFailure thrown by a command) is shrunk
 * and reported with its command sequence, seed, path and replay command; any other error (transport, interlock,
 * a screen the payer cannot drive) stops the run at once and is reported as itself.
 */
export async function runModel<P, M extends object, R>(t: TestHandle, spec: ModelSpec<P, M, R>): Promise<void> {
  const seed = t.run.config.fastCheck.seed ?? RANDOM_SEED;
  const numRuns = Math.min(t.run.config.fastCheck.numRuns, t.run.target.kind === 'embedded' ? spec.runs.embedded : spec.runs.remote);
  t.replay(seed, replayCommand(t, spec.file, spec.name, seed));
  let broken: unknown;
  const commands = fc.commands(spec.commands, { maxCommands: spec.maxCommands, ...(REPLAY_PATH ? { replayPath: REPLAY_PATH } : {}) });
  const details = await fc.check(
    fc.asyncProperty(spec.params, commands, async (params, cmds) => {
      if (broken !== undefined) throw broken;
      try {
        const { model, real } = await spec.setup(params);
        await fc.asyncModelRun(() => ({ model, real }), cmds);
      } catch (err) {
        if (!(err instanceof CheckFailure)) broken = err;
        throw err;
      }
    }),
    { numRuns, seed, ...(PATH ? { path: PATH } : {}) },
  );
  if (broken !== undefined) throw broken;
  if (!details.failed) return;
  const path = details.counterexamplePath ?? '';
  if (details.counterexample === null)
    throw new Error(`suite error, not a finding: the model could not run (${String(details.errorInstance)}; seed ${seed})`);
  const [params, cmds] = details.counterexample;
  const shown = String(cmds);
  const replayPath = /replayPath="([^"]*)"/.exec(shown)?.[1];
  const command = replayCommand(t, spec.file, spec.name, seed, path, replayPath);
  t.replay(seed, command);
  const inner = details.errorInstance instanceof CheckFailure ? details.errorInstance.evidence.clauses : spec.clauses;
  counterexampleFound(inner, spec.statement, {
    error: details.errorInstance,
    counterexample: `setup ${JSON.stringify(params)}; commands ${shown.replace(/\s*\/\*replayPath=.*\*\/$/, '') || '(none)'}`,
    seed,
    path,
    shrinks: details.numShrinks,
    command,
  });
}

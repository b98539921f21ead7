/**
 * The project's boundaries as data, checked over the whole tree (as Playwright's DEPS.list files are): each top-level
 * folder names the folders (or files) it may import; everything else is refused. The sandbox/judge boundary is the
 * first row: the sandbox imports nothing of the judge nor the OpenAPI document. Inside harness/, the rooms import only
 * downward (harness/README.md): record → api → payer → judge → setup → discovery → run; and no file of harness/ is
 * part of an import circle, even inside its room (a circle makes the load order decide what is initialised).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');

/**
 * What each top-level folder may import outside itself: a folder (`harness/`) or one file (`sandbox/index.ts`).
 * As docs/architecture.md says: suites → harness, generators; reporters → harness (what it records); harness → sandbox only
 * through its public factory; sandbox → nothing.
 */
const MAY_IMPORT: Record<string, { may: string[]; why: string }> = {
  sandbox: { may: [], why: 'the reference implementation imports nothing of the judge (harness, suites, generators, reporters) nor spec/' },
  spec: { may: [], why: 'the spec and its loader stand alone' },
  harness: {
    may: ['spec/clauses.ts', 'spec/types.ts', 'sandbox/index.ts'],
    why: "the judge's tools: the spec's clauses and types, the sandbox only through its public factory (to start it embedded)",
  },
  generators: { may: ['harness/', 'spec/types.ts'], why: "request bodies from the spec's types; never the suites or the sandbox" },
  suites: {
    may: ['harness/index.ts', 'generators/', 'spec/types.ts'],
    why: 'tests: the harness by its one door (harness/index.ts) and the generators, never the sandbox or the reporters',
  },
  reporters: {
    may: ['harness/record/', 'harness/setup/report-settings.ts'],
    why:
      'read what the harness records (task meta, the verdict, skip kinds) and the report settings (REPORT_DIR, ' +
      'BASELINE, FAIL_ON, read as the run reads them); never the sandbox',
  },
  scripts: { may: ['*'], why: 'entry points: wire any of the others together' },
  bench: {
    may: ['harness/', 'sandbox/index.ts'],
    why:
      'benchmarks of the harness against the sandbox (a standalone sandbox of their own: bench/remote-sandbox.ts, ' +
      'which the tests use too)',
  },
  bin: { may: [], why: 'the CLI runs scripts/ as a child process' },
  test: { may: ['*'], why: "the project's own tests reach what they test" },
  docs: { may: [], why: 'prose, no code' },
  '.ci': { may: [], why: 'the CI entry, a shell script' },
};

/** The one allowed exception, stated: the config reader validates FAULT and SANDBOX_VARIANT against the catalogues. */
const EXCEPTIONS: { from: string; to: string; why: string }[] = [
  { from: 'harness/setup/config.ts', to: 'sandbox/variants.ts', why: 'SANDBOX_VARIANT is checked against the variants catalogue' },
  { from: 'harness/setup/config.ts', to: 'sandbox/faults.ts', why: 'FAULT is checked against the faults catalogue' },
  {
    from: 'harness/setup/config.ts',
    to: 'sandbox/network.ts',
    why: 'SANDBOX_NETWORK is checked against the network profiles, whose webhook delays set WEBHOOK_TIMEOUT_S',
  },
];

/** Files and folders at the top that are not code folders. */
const NOT_FOLDERS = new Set(['node_modules', 'reports', '.git']);

const ROOMS = ['record', 'api', 'payer', 'judge', 'setup', 'discovery', 'run'];
const harness = join(repo, 'harness');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === 'node_modules' || e.name === 'fixtures'
        ? []
        : files(join(dir, e.name))
      : /\.(ts|mts|js|mjs)$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

/** The relative imports of a file (static, dynamic, require), resolved to paths from the repo root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import|require)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map(([, spec]) =>
    relative(repo, resolve(dirname(file), spec!)),
  );
}

/**
 * The static imports of a file (`import … from`, `export … from`, `import '…'`; type-only ones too: a circle of types
 * still ties the files together), resolved to paths from the repo root.
 */
function staticImportsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:(?:import|export)\b[^;'"]*?\bfrom\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].map(([, spec]) =>
    relative(repo, resolve(dirname(file), spec!)),
  );
}

/** The import circles among `sources` (repo-relative paths), each written `a → b → a`; a depth-first search. */
function importCircles(sources: readonly string[], importsOfSource: (source: string) => string[]): string[] {
  const known = new Set(sources);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const circles: string[] = [];
  const visit = (from: string): void => {
    state.set(from, 'open');
    path.push(from);
    for (const to of importsOfSource(from).filter((t) => known.has(t))) {
      if (state.get(to) === 'open') circles.push([...path.slice(path.indexOf(to)), to].join(' → '));
      else if (!state.has(to)) visit(to);
    }
    path.pop();
    state.set(from, 'done');
  };
  for (const source of sources) if (!state.has(source)) visit(source);
  return circles;
}

const topOf = (path: string): string => path.split(/[\\/]/)[0]!;
const allowed = (from: string, to: string): boolean => {
  const rule = MAY_IMPORT[topOf(from)];
  if (!rule) return false;
  if (rule.may.includes('*')) return true;
  if (rule.may.some((m) => (m.endsWith('/') ? to.startsWith(m) : to === m))) return true;
  return EXCEPTIONS.some((e) => e.from === from && e.to === to);
};

describe('boundaries over the whole tree', () => {
  it('every top-level folder has a row in the table', () => {
    const folders = readdirSync(repo, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !NOT_FOLDERS.has(e.name))
      .map((e) => e.name);
    expect(folders.filter((f) => !(f in MAY_IMPORT))).toEqual([]);
  });

  it('every import crosses a boundary only where the table allows it', () => {
    const crossings: string[] = [];
    for (const top of Object.keys(MAY_IMPORT).filter((t) => existsSync(join(repo, t)))) {
      for (const file of files(join(repo, top))) {
        const from = relative(repo, file);
        for (const to of importsOf(file)) if (topOf(to) !== top && !allowed(from, to)) crossings.push(`${from} → ${to}`);
      }
    }
    expect(crossings).toEqual([]);
  });

  it('each exception is still used (a stale one is removed from the table)', () => {
    for (const e of EXCEPTIONS) expect(importsOf(join(repo, e.from)), `${e.from} → ${e.to}`).toContain(e.to);
  });

  it('the sandbox reads no OpenAPI document', () => {
    expect(
      files(join(repo, 'sandbox'))
        .filter((f) => /openapi\.ya?ml/i.test(readFileSync(f, 'utf8')))
        .map((f) => relative(repo, f)),
    ).toEqual([]);
  });

  it('refuses what it should: a sandbox file importing the harness, a reporter importing the sandbox', () => {
    expect(allowed('sandbox/app.ts', 'harness/judge/checks.ts')).toBe(false);
    expect(allowed('reporters/collect.ts', 'sandbox/index.ts')).toBe(false);
    expect(allowed('harness/run/run.ts', 'suites/flows/links.ts')).toBe(false);
    expect(allowed('generators/bodies.ts', 'sandbox/store.ts')).toBe(false);
    expect(allowed('harness/api/http.ts', 'sandbox/faults.ts')).toBe(false);
  });
});

describe('harness rooms', () => {
  const roomOf = (file: string): string => relative(harness, file).split(/[\\/]/)[0]!;

  // The front door (harness/index.ts) stands above every room: it re-exports, and no room imports it.
  const DOOR = join(harness, 'index.ts');

  it('every file of harness/ lives in a room, but its front door', () => {
    expect(
      files(harness)
        .filter((f) => f !== DOOR)
        .map(roomOf)
        .filter((r) => !ROOMS.includes(r)),
    ).toEqual([]);
  });

  it('no room imports the front door', () => {
    expect(
      files(harness)
        .filter((f) => f !== DOOR && importsOf(f).includes('harness/index.ts'))
        .map((f) => relative(repo, f)),
    ).toEqual([]);
  });

  it('a room imports only from itself and the rooms below it', () => {
    const upward: string[] = [];
    for (const file of files(harness).filter((f) => f !== DOOR)) {
      for (const to of importsOf(file)) {
        if (topOf(to) !== 'harness') continue;
        const [from, room] = [ROOMS.indexOf(roomOf(file)), ROOMS.indexOf(roomOf(join(repo, to)))];
        if (room > from) upward.push(`${relative(repo, file)} → ${to}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('no file of harness/ is part of an import circle', () => {
    const sources = files(harness).map((f) => relative(repo, f));
    expect(importCircles(sources, (source) => staticImportsOf(join(repo, source)))).toEqual([]);
  });

  it('the circle search finds a circle, inside a room and across two', () => {
    const graph: Record<string, string[]> = {
      'judge/checks.ts': ['judge/webhook.ts'],
      'judge/webhook.ts': ['judge/read.ts'],
      'judge/read.ts': ['judge/checks.ts', 'record/meta.ts'],
      'record/meta.ts': [],
    };
    expect(importCircles(Object.keys(graph), (s) => graph[s] ?? [])).toEqual([
      'judge/checks.ts → judge/webhook.ts → judge/read.ts → judge/checks.ts',
    ]);
    expect(importCircles(['a.ts', 'b.ts'], (s) => (s === 'a.ts' ? ['b.ts'] : ['a.ts']))).toEqual(['a.ts → b.ts → a.ts']);
    expect(importCircles(['a.ts', 'b.ts'], (s) => (s === 'a.ts' ? ['b.ts'] : []))).toEqual([]);
  });
});

/**
 * The harness's rooms import only downward (harness/README.md): record → api → payer → judge → target → discovery → run,
 * and the harness never imports the suites, generators or reporters. A file outside a room is a room of its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOMS = ['record', 'api', 'payer', 'judge', 'target', 'discovery', 'run'];
const root = resolve(import.meta.dirname, '../../harness');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

const roomOf = (file: string): string => relative(root, file).split(/[\\/]/)[0]!;

describe('harness rooms', () => {
  it('every file of harness/ lives in a room', () => {
    expect(files(root).map(roomOf).filter((r) => !ROOMS.includes(r))).toEqual([]);
  });

  it('a room imports only from itself and the rooms below it, never the suites, generators or reporters', () => {
    const upward: string[] = [];
    for (const file of files(root)) {
      const text = readFileSync(file, 'utf8');
      for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = resolve(dirname(file), spec!);
        const rel = relative(root, target);
        if (rel.startsWith('..')) {
          const top = relative(resolve(root, '..'), target).split(/[\\/]/)[0]!;
          if (['suites', 'generators', 'reporters'].includes(top)) upward.push(`${relative(root, file)} → ${top}/`);
          continue;
        }
        const [from, to] = [ROOMS.indexOf(roomOf(file)), ROOMS.indexOf(roomOf(target))];
        if (to > from) upward.push(`${relative(root, file)} → ${rel}`);
      }
    }
    expect(upward).toEqual([]);
  });
});

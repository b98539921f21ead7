/**
 * Shards balanced by test count (harness/run/suite-files.ts): every test in exactly one shard, shard sizes within one
 * of each other whatever the files' sizes; CONFORMANCE_SHARD read and refused as before.
 */
import { describe, expect, it } from 'vitest';
import { selectSuites, shardFilter, shardOf } from '../../harness/run/suite-files.ts';

/** Declares files of these sizes through each shard's filter; returns, per shard, the tests it kept as `file#i`. */
function shards(sizes: number[], count: number): string[][] {
  return Array.from({ length: count }, (_, s) => {
    const inShard = shardFilter({ index: s + 1, count });
    return sizes.flatMap((size, f) => Array.from({ length: size }, (_, i) => `${f}#${i}`).filter(() => inShard()));
  });
}

describe('shards by test count', () => {
  it('puts every test in exactly one shard, the shards within one test of each other', () => {
    const sizes = [1, 28, 3, 12, 1, 9, 20, 2];
    for (const count of [1, 2, 3, 5]) {
      const got = shards(sizes, count);
      const all = got.flat();
      expect(all.length, `${count} shards`).toBe(sizes.reduce((a, b) => a + b, 0));
      expect(new Set(all).size).toBe(all.length);
      const lengths = got.map((s) => s.length);
      expect(Math.max(...lengths) - Math.min(...lengths), `${count} shards: ${lengths.join(', ')}`).toBeLessThanOrEqual(1);
    }
  });

  it('without a shard keeps every test', () => {
    const keep = shardFilter(undefined);
    expect([1, 2, 3].map(() => keep())).toEqual([true, true, true]);
  });

  it('reads CONFORMANCE_SHARD, refuses a malformed one, and no longer drops files for a shard', () => {
    expect(shardOf({})).toBeUndefined();
    expect(shardOf({ CONFORMANCE_SHARD: ' 2/3 ' })).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/3', '4/3', 'x', '1-3']) expect(() => shardOf({ CONFORMANCE_SHARD: bad }), bad).toThrow(/must be i\/n/);
    expect(selectSuites('suites', ['b.test.ts', 'a.test.ts', 'c.test.ts'], { CONFORMANCE_SHARD: '2/3' })).toEqual([
      'suites/a.test.ts',
      'suites/b.test.ts',
      'suites/c.test.ts',
    ]);
    expect(() => selectSuites('suites', ['a.test.ts'], { CONFORMANCE_SHARD: '5/3' })).toThrow(/CONFORMANCE_SHARD/);
  });
});

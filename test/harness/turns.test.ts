/**
 * The browser payer's turns (harness/payer/browser-session.ts): at most n pages driven at once, a free turn to the
 * test with most still to do (priorityNow), first come among equals — the order the request cap uses (nextInLine).
 */
import { describe, expect, it } from 'vitest';
import { Turns } from '../../harness/payer/browser-session.ts';
import { nextInLine } from '../../harness/api/queue-order.ts';

describe('Turns', () => {
  it('grants n at once, then the highest priority waiting, first come among equals', async () => {
    const turns = new Turns(1);
    let release = await turns.take();
    const order: string[] = [];
    const taken = (name: string) => (r: () => void) => {
      order.push(name);
      release = r;
    };
    const waiting = [turns.take(1).then(taken('low')), turns.take(5).then(taken('high, first')), turns.take(5).then(taken('high, second'))];
    for (let i = 0; i < 3; i++) {
      release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waiting);
    expect(order).toEqual(['high, first', 'high, second', 'low']);
  });

  it('a turn given back with nobody waiting is free for the next taker at once; a release counts once', async () => {
    const turns = new Turns(1);
    const release = await turns.take();
    release();
    release();
    await turns.take();
    await expect(
      Promise.race([turns.take().then(() => 'granted'), new Promise((resolve) => setImmediate(() => resolve('waiting')))]),
    ).resolves.toBe('waiting');
  });

  it('work before a deadline takes a reserved turn while every ordinary one is held; ordinary work never does', async () => {
    const turns = new Turns(1, 1);
    await turns.take();
    const now = (p: Promise<unknown>) =>
      Promise.race([p.then(() => 'granted'), new Promise((resolve) => setImmediate(() => resolve('waiting')))]);
    const ordinary = turns.take(9);
    await expect(now(ordinary)).resolves.toBe('waiting');
    const urgent = turns.take(1, true);
    await expect(now(urgent)).resolves.toBe('granted');
    // The reserved turn given back goes to the next urgent taker, not to the ordinary one waiting longer.
    const second = turns.take(1, true);
    (await urgent)();
    await expect(now(second)).resolves.toBe('granted');
    await expect(now(ordinary)).resolves.toBe('waiting');
  });
});

describe('nextInLine', () => {
  it('picks the highest priority, then the lowest seq', () => {
    expect(
      nextInLine([
        { priority: 1, seq: 0 },
        { priority: 3, seq: 2 },
        { priority: 3, seq: 1 },
      ]),
    ).toBe(2);
    expect(nextInLine([{ priority: 0, seq: 4 }])).toBe(0);
  });
});

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
    await turns.take();
    const order: string[] = [];
    const waiting = [
      turns.take(1).then(() => order.push('low')),
      turns.take(5).then(() => order.push('high, first')),
      turns.take(5).then(() => order.push('high, second')),
    ];
    for (let i = 0; i < 3; i++) {
      turns.give();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waiting);
    expect(order).toEqual(['high, first', 'high, second', 'low']);
  });

  it('a turn given back with nobody waiting is free for the next taker at once', async () => {
    const turns = new Turns(1);
    await turns.take();
    turns.give();
    await expect(
      Promise.race([turns.take().then(() => 'granted'), new Promise((resolve) => setImmediate(() => resolve('waiting')))]),
    ).resolves.toBe('granted');
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

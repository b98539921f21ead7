/**
 * A lock for whole tests (the conformance tests of all files run concurrently), held in one of five modes:
 *   - shared: most tests; any number at once;
 *   - timeless: a test whose outcome does not depend on the target's clock (a validation rule, a property over
 *     bodies): like shared, and it may also run while a test moves the clock;
 *   - quiet: tests that measure the target's global counters ("creates nothing"); any number of quiet tests at
 *     once, but nothing else meanwhile (any other test may create things and move the counters);
 *   - clock: a test that moves the target's clock; only timeless tests beside it, one clock test at a time;
 *   - exclusive: nothing else at once (a quiet test judged again alone).
 * Who is served first, when several wait: an upgrade (a clock test that must go on alone), then a waiter that has
 * waited `patienceMs` (10 s; oldest first), then by mode — clock (the clock tests are the run's one serial chain, and
 * timeless tests fill the pipeline beside it), timeless, shared, quiet, exclusive — then first come, first served. A waiter that cannot be served yet holds back every
 * later waiter it cannot run beside, so it is served as soon as its way is clear; later waiters it can run beside
 * go on meanwhile.
 *
 *   const release = await lock.acquire('shared');   // or 'timeless', 'quiet', 'clock', 'exclusive'
 *   try { … } finally { release(); }
 */
export type LockMode = 'timeless' | 'shared' | 'quiet' | 'clock' | 'exclusive';

/** The modes each mode can hold the lock beside. */
const BESIDE: Record<LockMode, readonly LockMode[]> = {
  timeless: ['timeless', 'shared', 'clock'],
  shared: ['shared', 'timeless'],
  quiet: ['quiet'],
  clock: ['timeless'],
  exclusive: [],
};

const URGENCY: readonly LockMode[] = ['clock', 'timeless', 'shared', 'quiet', 'exclusive'];

export function together(a: LockMode, b: LockMode): boolean {
  return BESIDE[a].includes(b);
}

/** The one mode that allows what both modes allow a test to do (a timeless test that reads the counters is quiet). */
export function joinModes(a: LockMode, b: LockMode): LockMode {
  if (a === b) return a;
  const both = new Set([a, b]);
  if (both.has('exclusive') || (both.has('quiet') && both.has('clock'))) return 'exclusive';
  for (const mode of ['quiet', 'clock', 'shared'] as const) if (both.has(mode)) return mode;
  return 'timeless';
}

interface Waiter {
  mode: LockMode;
  /** The mode the waiter holds and gives up when granted (an upgrade: no gap in which another test gets in). */
  replacing: LockMode | undefined;
  since: number;
  seq: number;
  grant: () => void;
}

export class TestLock {
  readonly #holders = new Map<LockMode, number>();
  readonly #queue: Waiter[] = [];
  #seq = 0;
  #pumpScheduled = false;

  constructor(readonly patienceMs = 10_000) {}

  /**
   * `replacing`: the mode the caller holds now, given up when this one is granted (its releaser must then not be
   * called). Upgrades go first. Only a holder no other holder of its mode can be waiting on may upgrade (a clock
   * test: one at a time), or two upgrades could wait for each other.
   */
  acquire(mode: LockMode, replacing?: LockMode): Promise<() => void> {
    return new Promise((resolve) => {
      this.#queue.push({ mode, replacing, since: Date.now(), seq: this.#seq++, grant: () => resolve(this.#releaser(mode)) });
      // Served on the next turn of the event loop: the tests that start together are ordered together, so a clock
      // test declared in a later file is not kept waiting behind shared tests that merely asked a moment earlier.
      if (!this.#pumpScheduled) {
        this.#pumpScheduled = true;
        setImmediate(() => ((this.#pumpScheduled = false), this.#pump()));
      }
    });
  }

  /** The modes held and by how many, and how many wait (for tests of the lock). */
  get state(): { modes: LockMode[]; holders: number; waiting: number } {
    const modes = [...this.#holders.keys()].sort((a, b) => URGENCY.indexOf(a) - URGENCY.indexOf(b));
    return { modes, holders: [...this.#holders.values()].reduce((a, b) => a + b, 0), waiting: this.#queue.length };
  }

  #releaser(mode: LockMode): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#take(mode, -1);
      this.#pump();
    };
  }

  #fits(w: Waiter): boolean {
    for (const [held, count] of this.#holders) {
      if (held === w.replacing && count === 1) continue;
      if (!together(w.mode, held)) return false;
    }
    return true;
  }

  #take(mode: LockMode, delta: number): void {
    const count = (this.#holders.get(mode) ?? 0) + delta;
    if (count === 0) this.#holders.delete(mode);
    else this.#holders.set(mode, count);
  }

  /** Grants, in the order above, every waiter that fits beside the holders and beside the waiters before it. */
  #pump(): void {
    const now = Date.now();
    const overdue = (w: Waiter) => now - w.since >= this.patienceMs;
    const upgrade = (w: Waiter) => w.replacing !== undefined;
    const order = [...this.#queue].sort((a, b) =>
      upgrade(a) !== upgrade(b) ? (upgrade(a) ? -1 : 1)
        : overdue(a) !== overdue(b) ? (overdue(a) ? -1 : 1)
        : overdue(a) ? a.seq - b.seq
        : URGENCY.indexOf(a.mode) - URGENCY.indexOf(b.mode) || a.seq - b.seq);
    const ahead: LockMode[] = [];
    for (const w of order) {
      if (this.#fits(w) && ahead.every((mode) => together(w.mode, mode))) {
        if (w.replacing) this.#take(w.replacing, -1);
        this.#take(w.mode, 1);
        this.#queue.splice(this.#queue.indexOf(w), 1);
        w.grant();
      } else if (!ahead.includes(w.mode)) {
        ahead.push(w.mode);
      }
    }
  }
}

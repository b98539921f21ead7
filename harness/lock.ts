/**
 * A lock for whole tests (the conformance tests of a file run concurrently), held in one of three modes:
 *   - shared: most tests; any number at once;
 *   - quiet: tests that measure the target's global counters ("creates nothing"); any number of quiet tests at
 *     once, but no shared test meanwhile (a shared test may create things and move the counters);
 *   - exclusive: a test that changes what every other test sees (moves the target's clock); nothing else at once.
 * Shared requests go first: a quiet or exclusive request waits until no shared test holds or wants the lock, so
 * within a file the tests that change or measure global state run after the others, at once, instead of draining
 * the pipeline once each. Quiet goes before exclusive; within a mode, first come, first served. A quiet or
 * exclusive request that has waited `patienceMs` (10 s) is served next, so its wait stays well inside a test's timeout.
 *
 *   const release = await lock.acquire('shared');   // or 'quiet', 'exclusive'
 *   try { … } finally { release(); }
 */
export type LockMode = 'shared' | 'quiet' | 'exclusive';

export class TestLock {
  #mode: LockMode | undefined;
  #holders = 0;
  readonly #queue: { mode: LockMode; since: number; grant: () => void }[] = [];

  constructor(readonly patienceMs = 10_000) {}

  acquire(mode: LockMode): Promise<() => void> {
    return new Promise((resolve) => {
      this.#queue.push({ mode, since: Date.now(), grant: () => resolve(this.#releaser()) });
      this.#pump();
    });
  }

  /** Who holds it and how many wait (for tests of the lock). */
  get state(): { mode: LockMode | undefined; holders: number; waiting: number } {
    return { mode: this.#mode, holders: this.#holders, waiting: this.#queue.length };
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#holders === 0) this.#mode = undefined;
      this.#pump();
    };
  }

  /** Grants what may run now: shared before quiet before exclusive; a group joins its own mode's holders. */
  #pump(): void {
    for (;;) {
      const next = this.#next();
      if (!next) return;
      if (this.#holders > 0 && (next.mode !== this.#mode || next.mode === 'exclusive')) return;
      this.#mode = next.mode;
      this.#holders++;
      this.#queue.splice(this.#queue.indexOf(next), 1);
      next.grant();
    }
  }

  /** The first waiter that has run out of patience, else the first of the most urgent mode waiting. */
  #next(): { mode: LockMode; since: number; grant: () => void } | undefined {
    const now = Date.now();
    const overdue = this.#queue.find((w) => w.mode !== 'shared' && now - w.since >= this.patienceMs);
    if (overdue) return overdue;
    for (const mode of ['shared', 'quiet', 'exclusive'] as const) {
      const waiter = this.#queue.find((w) => w.mode === mode);
      if (waiter) return waiter;
    }
    return undefined;
  }
}

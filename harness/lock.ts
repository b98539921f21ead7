/**
 * A lock for whole tests (the conformance tests of a file run concurrently), held in one of three modes:
 *   - shared: most tests; any number at once;
 *   - quiet: tests that measure the target's global counters ("creates nothing"); any number of quiet tests at
 *     once, but no shared test meanwhile (a shared test may create things and move the counters);
 *   - exclusive: a test that changes what every other test sees (moves the target's clock); nothing else at once.
 * First come, first served: a waiting request holds back every request queued after it, so none starves.
 *
 *   const release = await lock.acquire('shared');   // or 'quiet', 'exclusive'
 *   try { … } finally { release(); }
 */
export type LockMode = 'shared' | 'quiet' | 'exclusive';

export class TestLock {
  #mode: LockMode | undefined;
  #holders = 0;
  readonly #queue: { mode: LockMode; grant: () => void }[] = [];

  acquire(mode: LockMode): Promise<() => void> {
    return new Promise((resolve) => {
      this.#queue.push({ mode, grant: () => resolve(this.#releaser()) });
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

  /** Grants from the head of the queue while the head may join the holders. */
  #pump(): void {
    for (;;) {
      const head = this.#queue[0];
      if (!head) return;
      const joins = this.#holders === 0 || (head.mode === this.#mode && head.mode !== 'exclusive');
      if (!joins) return;
      this.#mode = head.mode;
      this.#holders++;
      this.#queue.shift();
      head.grant();
    }
  }
}

/**
 * A read/write lock for whole tests (the conformance tests of a file run concurrently): most tests hold it shared;
 * a test that changes what every other test sees (moves the target's clock, measures its global counters) holds it
 * exclusively, so nothing else is in flight meanwhile. First come, first served: a waiting exclusive request holds
 * back the shared requests queued after it, so it cannot starve.
 *
 *   const release = await lock.acquire('shared');   // or 'exclusive'
 *   try { … } finally { release(); }
 */
export type LockMode = 'shared' | 'exclusive';

export class TestLock {
  #readers = 0;
  #writer = false;
  readonly #queue: { mode: LockMode; grant: () => void }[] = [];

  acquire(mode: LockMode): Promise<() => void> {
    return new Promise((resolve) => {
      this.#queue.push({ mode, grant: () => resolve(this.#releaser(mode)) });
      this.#pump();
    });
  }

  /** Tests holding it shared, and whether one holds it exclusively (for tests of the lock). */
  get state(): { shared: number; exclusive: boolean; waiting: number } {
    return { shared: this.#readers, exclusive: this.#writer, waiting: this.#queue.length };
  }

  #releaser(mode: LockMode): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (mode === 'exclusive') this.#writer = false;
      else this.#readers--;
      this.#pump();
    };
  }

  /** Grants from the head of the queue while the head is compatible with the holders. */
  #pump(): void {
    for (;;) {
      const head = this.#queue[0];
      if (!head || this.#writer) return;
      if (head.mode === 'exclusive') {
        if (this.#readers > 0) return;
        this.#writer = true;
      } else {
        this.#readers++;
      }
      this.#queue.shift();
      head.grant();
    }
  }
}

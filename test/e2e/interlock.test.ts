/**
 * End to end: the whole conformance suite run against a business in PRODUCTION mode (a sandbox started
 * with mode 'production', used as a remote target) fails, says why with the interlock message, and sends the
 * target not a single purchase or payment request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCTION_MESSAGE } from '../../harness/setup/interlock.ts';
import { failureText, listing, runConformance, type ChildRun } from '../hostile/run.ts';
import { startRemoteSandbox, type RemoteSandbox } from '../../bench/remote-sandbox.ts';

let target: RemoteSandbox;
let run: ChildRun;

beforeAll(async () => {
  target = await startRemoteSandbox({ mode: 'production' });
  run = await runConformance({ env: { ...target.env, FC_NUM_RUNS: '5', RUN_TIMEOUT_S: '240' }, timeoutMs: 300_000 });
}, 320_000);

afterAll(async () => {
  await target?.close();
});

describe('the production interlock, end to end', () => {
  it('the run fails and its output carries the interlock message', () => {
    expect(run.killed).toBe(false);
    expect(run.code, run.output.slice(-3000)).not.toBe(0);
    expect(run.code).not.toBeNull();
    expect(run.output).toContain(PRODUCTION_MESSAGE);
    expect(run.summary?.run.mode).toBe('production');
    expect(run.files['junit.xml']).toContain(PRODUCTION_MESSAGE);
  });

  it('the target received zero purchase requests', async () => {
    // The run did reach the target (the mode probe creates a link), so zero purchases means refused, not absent.
    const stats = await target.stats();
    expect(stats.links, listing(run)).toBeGreaterThan(0);
    expect(stats.purchaseRequests).toBe(0);
    // Seen on the wire too, independently of the sandbox's counter: no purchase POST, no hosted-screen payment.
    const paid = target.requests.filter((r) => /^POST \/(api\/TransaccionCompra\/|pagar\/|3ds\/|qp\/)/.test(r));
    expect(paid).toEqual([]);
  });

  it('every test that would pay is reported stopped with the interlock message, none passed', () => {
    const stopped = run.summary?.tests.filter((t) => `${t.reason ?? ''}${failureText(t)}`.includes(PRODUCTION_MESSAGE)) ?? [];
    expect(stopped.length, listing(run)).toBeGreaterThan(5);
    for (const t of stopped) expect(['notRun', 'fail', 'error'], t.name).toContain(t.status);
  });
});

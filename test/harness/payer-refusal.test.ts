/**
 * A hosted page that refuses what the payer sent, seen from a whole conformance run: the sandbox, as a remote
 * target, has its 3DS and quick-pay pages answer every post with 422 and the form shown again. The tests whose
 * premise is "the payment went through" end SKIP naming the page's status and text — never a FAIL of what follows
 * (e.g. "esAprobada after paying the QR = false"), and never a pass.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance, type ChildRun } from '../hostile/run.ts';
import { startRemoteSandbox, type RemoteSandbox } from '../../bench/remote-sandbox.ts';

const REFUSAL = 'cc-number: the card number is required';

let target: RemoteSandbox;
let run: ChildRun;

beforeAll(async () => {
  target = await startRemoteSandbox({ mode: 'development' });
  const server = target.sandbox.app.server;
  const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'POST' && /^\/(qp|3ds)\/[^/.]+$/.test(path)) {
      res.writeHead(422, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><ul id="errores"><li>${REFUSAL}</li></ul><form method="post" action="${path}"><input ` +
          `name="cc-number"><button>Pay</button></form>`,
      );
      return;
    }
    for (const listener of listeners) listener.call(server, req, res);
  });
  run = await runConformance({
    files: ['suites/quick-pay.test.ts', 'suites/3ds.test.ts'],
    env: { ...target.env, RUN_TIMEOUT_S: '120' },
    args: ['-t', 'paying the QR before it expires|after completion the transaction is shown approved'],
    timeoutMs: 150_000,
  });
}, 180_000);

afterAll(async () => {
  await target?.close();
});

describe('a page refusing what the payer sent', () => {
  it("ends the tests that needed the payment SKIP, naming the page's status and text; none FAILs", () => {
    const tests =
      run.summary?.tests.filter((t) => /paying the QR before it expires|after completion the transaction is shown approved/.test(t.name)) ??
      [];
    expect(
      tests.map((t) => t.status),
      run.output.slice(-3000),
    ).toEqual(['skip', 'skip']);
    for (const t of tests) {
      expect(t.reason).toContain('did not go through: the page answered 422 to what the payer sent');
      expect(t.reason).toContain(REFUSAL);
    }
    expect(run.summary?.tests.filter((t) => t.status === 'fail' || t.status === 'error')).toEqual([]);
  });
});

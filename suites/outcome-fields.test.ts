/**
 * Each field of 2.2 only on the outcomes the spec gives it. codigoAutorizacion is the "authorization code of an
 * approved real transaction": a declined transaction has no authorization, so no channel that tells of it — the
 * redirect (6.3), the lookup (4.8), the link record's transacciones (2.1) — carries one (absent, null or "" all say
 * none: docs/decisions.md, "Null and absent"). A test approval's code is left to the observation clause: the suite
 * never makes a real payment (principle 5).
 */
import { describe } from 'vitest';
import { activate, createLink } from './flows/links.ts';
import { lookUp } from './flows/lookups.ts';
import { declineOnScreen, observedLinkBody } from './flows/screens.ts';
import { asString, clauseTest, field, holds } from '../harness/index.ts';

/** A code is said when it is a non-empty text or any other value than null ("" and null are the spec's "none"). */
const saysACode = (v: unknown): boolean => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');

describe('2.2 codigoAutorizacion only on an approved transaction', () => {
  clauseTest(
    { clauses: ['2.2-codigo-autorizacion-not-on-decline'], endpoint: 'flow', purchase: true },
    'a declined payment carries no codigoAutorizacion: not in the redirect, the lookup nor the link record',
    async (t) => {
      const { link } = await createLink(t, await observedLinkBody(t));
      const [params] = await declineOnScreen(t, link.urlEnlace, 1);
      const id = params!['idTransaccion'];
      const clause = '2.2-codigo-autorizacion-not-on-decline';
      t.soft(() =>
        holds(
          !saysACode(params!['codigoAutorizacion']),
          'field-on-outcome',
          clause,
          'the redirect of a declined payment gives no codigoAutorizacion (empty or absent)',
          `codigoAutorizacion=${params!['codigoAutorizacion']}`,
        ),
      );
      if (!id) return;
      const looked = await lookUp(t, id);
      t.soft(() =>
        holds(
          !saysACode(looked.tx['codigoAutorizacion']),
          'field-on-outcome',
          clause,
          `the lookup of the declined transaction ${id} gives no codigoAutorizacion (absent, null or "")`,
          `codigoAutorizacion = ${JSON.stringify(looked.tx['codigoAutorizacion'])} (esAprobada ${JSON.stringify(looked.tx['esAprobada'])})`,
          looked.ex,
        ),
      );
      if (!t.run.target.account) return;
      const { ex, record } = await activate(t, link.idEnlace);
      const listed = (record.transacciones ?? []).find((tx) => asString(field(tx, 'idTransaccion')) === id);
      if (listed === undefined) return; // listing it is 2.1-transacciones-all's finding
      t.soft(() =>
        holds(
          !saysACode(field(listed, 'codigoAutorizacion')),
          'field-on-outcome',
          clause,
          `the link record lists the declined transaction ${id} without a codigoAutorizacion`,
          `codigoAutorizacion = ${JSON.stringify(field(listed, 'codigoAutorizacion'))}`,
          ex,
        ),
      );
    },
  );
});

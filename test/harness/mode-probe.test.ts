/**
 * The mode probe (harness/setup/target.ts probeLink) on a lost answer: creating a link charges nothing, so it probes
 * again with a new link (never the same request re-sent) and records what was lost; a second loss, or no answer
 * within the timeout, ends the probe.
 */
import { describe, expect, it } from 'vitest';
import { AmbiguousAnswerError } from '../../harness/api/errors.ts';
import type { Exchange, Http, HttpRequest } from '../../harness/api/http.ts';
import { probeLink } from '../../harness/setup/target.ts';

/** An Http whose answers are scripted: 'lost' throws as the client does after a dropped POST. */
function scripted(answers: ('lost' | 'silent' | object)[]): { http: Http; sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  const http: Http = {
    async request(req) {
      sent.push(req);
      const next = answers.shift();
      const ex = { request: req, response: undefined } as unknown as Exchange;
      if (next === 'silent') throw new AmbiguousAnswerError('POST unanswered', ex, 'no response within 15 s', { silent: true });
      if (next === undefined || next === 'lost') throw new AmbiguousAnswerError('POST dropped', ex, 'connection dropped');
      return { ...ex, response: { status: 201, json: next } } as unknown as Exchange;
    },
    async close() {},
  };
  return { http, sent };
}

const identificador = (req: HttpRequest) => (req.json as { identificadorEnlaceComercio: string }).identificadorEnlaceComercio;

describe('mode probe', () => {
  it('a lost answer is found out with a new link, and noted', async () => {
    const { http, sent } = scripted(['lost', { idEnlace: 'e2', estaProductivo: false }]);
    const { probe, idEnlace } = await probeLink(http, 'http://api.test', 'tok', 'CLIENT_ID');
    expect(probe).toMatchObject({ variable: 'CLIENT_ID', mode: 'development', status: 201, lostAnswer: 'connection dropped' });
    expect(idEnlace).toBe('e2');
    expect(sent).toHaveLength(2);
    expect(identificador(sent[1]!)).not.toBe(identificador(sent[0]!));
  });

  it('an answer that came back is not probed again, nor noted', async () => {
    const { http, sent } = scripted([{ idEnlace: 'e1', estaProductivo: true }]);
    const { probe } = await probeLink(http, 'http://api.test', 'tok', 'CLIENT_ID');
    expect(probe).toEqual({ variable: 'CLIENT_ID', mode: 'production', status: 201 });
    expect(sent).toHaveLength(1);
  });

  it('no answer within the timeout ends the probe: a silent target is not waited for twice', async () => {
    const { http, sent } = scripted(['silent', { estaProductivo: false }]);
    await expect(probeLink(http, 'http://api.test', 'tok', 'CLIENT_ID')).rejects.toBeInstanceOf(AmbiguousAnswerError);
    expect(sent).toHaveLength(1);
  });

  it('two lost answers end the probe with the loss (the target unusable), not a third link', async () => {
    const { http, sent } = scripted(['lost', 'lost', { estaProductivo: false }]);
    await expect(probeLink(http, 'http://api.test', 'tok', 'CLIENT_ID')).rejects.toBeInstanceOf(AmbiguousAnswerError);
    expect(sent).toHaveLength(2);
  });
});

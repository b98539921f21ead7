/**
 * TOKEN_AUDIENCE discovery (harness/discovery/audience.ts): the candidates after the configured audience, and the
 * whole discovery against the sandbox whose token endpoint wants an audience of its own (fault token-audience-own:
 * it publishes it in its openid-configuration), only token requests and one GET sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audienceCandidates, discoverAudience } from '../../harness/discovery/audience.ts';
import { createHttp } from '../../harness/api/http.ts';
import { Recorder } from '../../harness/record/transcript.ts';
import { createSandbox, type Sandbox } from '../../sandbox/index.ts';

describe('audienceCandidates', () => {
  it('the configured audience first, then the scopes an issuer publishes (not the OpenID ones), then names of the hosts', () => {
    const got = audienceCandidates(
      'service_api',
      ['openid', 'profile', 'pagos_api', 'offline_access'],
      ['auth.pagos.example.com', 'api.pagos.example.com'],
    );
    expect(got.slice(0, 2)).toEqual(['service_api', 'pagos_api']);
    expect(got).toContain('pagos');
    expect(got).not.toContain('openid');
    expect(new Set(got).size).toBe(got.length);
  });
  it('ignores hosts that are addresses', () => {
    expect(audienceCandidates('service_api', [], ['127.0.0.1'])).toEqual(['service_api', 'api']);
  });
});

describe('discoverAudience against a token endpoint that refuses service_api', () => {
  let sandbox: Sandbox;
  const http = createHttp({ timeoutMs: 5000, retries: 0, maxResponseBytes: 65536, recorder: new Recorder() });
  beforeAll(async () => {
    sandbox = await createSandbox({ fault: 'token-audience-own' });
  });
  afterAll(async () => {
    await sandbox.close();
    await http.close();
  });

  it('finds the audience the issuer publishes, with the evidence of each attempt', async () => {
    const { business } = sandbox.credentials;
    const found = await discoverAudience({
      http,
      authUrl: sandbox.authUrl,
      baseUrl: sandbox.baseUrl,
      business: { clientId: business.clientId, clientSecret: business.clientSecret },
      audience: 'service_api',
    });
    expect(found.audience).toBe('pasarela_api');
    expect(found.evidence).toMatch(/service_api → 400; pasarela_api → 200/);
    expect(found.evidence).not.toContain(business.clientSecret);
  });

  it('keeps a configured audience that works', async () => {
    const { business } = sandbox.credentials;
    const found = await discoverAudience({
      http,
      authUrl: sandbox.authUrl,
      baseUrl: sandbox.baseUrl,
      business: { clientId: business.clientId, clientSecret: business.clientSecret },
      audience: 'pasarela_api',
    });
    expect(found.audience).toBe('pasarela_api');
  });
});

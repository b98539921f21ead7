/**
 * The areas a run cannot check with its settings, said before the tests with their fix, and REQUIRE making one a
 * set-up error: webhooks (no receiver the target reaches), screens (no payer for script-built pages), account deletion.
 */
import { describe, expect, it } from 'vitest';
import { areaLine, requiredLine, uncheckedAreas } from '../../harness/setup/areas.ts';
import { loadConfig } from '../../harness/setup/config.ts';

const config = (env: Record<string, string>) => loadConfig(env, { dotenvPath: null });
const remote = {
  API_BASE_URL: 'https://203.0.113.7/api',
  AUTH_URL: 'https://203.0.113.7/auth',
  CLIENT_ID: 'c',
  CLIENT_SECRET: 's',
};

describe('areas left unchecked', () => {
  it('a remote target elsewhere with a loopback receiver: webhooks; deletion not opted in', async () => {
    const found = await uncheckedAreas(config(remote));
    expect(found.map((u) => u.area)).toEqual(['webhooks', 'account-deletion']);
    expect(areaLine(found[0]!)).toMatch(
      /^not checked with these settings: webhooks: no receiver the target can reach .*; to check: WEBHOOK_PUBLIC_URL/,
    );
  });

  it('a WEBHOOK_PUBLIC_URL with RECEIVER_PORT=0 cannot be forwarded to', async () => {
    const found = await uncheckedAreas(config({ ...remote, WEBHOOK_PUBLIC_URL: 'https://tunnel.example.test', ALLOW_DESTRUCTIVE: '' }));
    expect(found[0]).toMatchObject({ area: 'webhooks', why: expect.stringMatching(/RECEIVER_PORT=0/) });
  });

  it("the embedded sandbox's script-built screens without a browser: screens", async () => {
    expect((await uncheckedAreas(config({ SANDBOX_SCREEN: 'js', PAYER: 'http' }))).map((u) => u.area)).toEqual(['screens']);
    expect(await uncheckedAreas(config({}))).toEqual([]);
  });

  it('REQUIRE names the unchecked areas that stop the run', async () => {
    const found = await uncheckedAreas(config(remote));
    expect(requiredLine(found, ['screens'])).toBeUndefined();
    expect(requiredLine(found, ['webhooks', 'screens'])).toMatch(/^REQUIRE=webhooks,screens: webhooks cannot be checked/);
    expect(() => config({ REQUIRE: 'webhook' })).toThrow(/REQUIRE .*got unknown "webhook"/);
  });
});

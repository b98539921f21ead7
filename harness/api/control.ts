/**
 * Client of the sandbox's test-control API (outside the spec; docs/decisions.md). Suites use it only when the
 * capability probe found it, and skip with a reason otherwise. A tenant (`createTenant`: a fresh account and
 * business with their own clock, counters and outbox) answers the same calls under `/tenants/:id`.
 */
import type { Http } from './http.ts';

export interface OutboxWebhook {
  url: string;
  body: unknown;
  attempts: number;
  delivered: boolean;
  lastStatus?: number | null;
}

export interface Outbox {
  webhooks: OutboxWebhook[];
  emails: { to: string; subject: string; body: string }[];
  sms: { to: string; body: string }[];
}

export interface Stats {
  links: number;
  transactions: number;
  accounts: number;
  purchaseRequests: number;
}

/** What `POST /tenants` grants: credentials of a fresh account and business, and the id of their control calls. */
export interface TenantGrant {
  id: string;
  account: { user: string; password: string };
  business: { idAplicativo: string; clientId: string; clientSecret: string };
}

export interface Control {
  /** The target's clock, which runs ahead of ours once advanced. */
  now(): Promise<Date>;
  advanceClock(seconds: number): Promise<void>;
  outbox(): Promise<Outbox>;
  stats(): Promise<Stats>;
  /** A fresh tenant and the control of its clock, counters and outbox (targets with the `tenants` capability). */
  createTenant(): Promise<{ grant: TenantGrant; control: Control }>;
}

export function createControl(http: Http, controlUrl: string): Control {
  async function get<T>(path: string): Promise<T> {
    const ex = await http.request({ method: 'GET', url: `${controlUrl}${path}`, label: `control ${path}` });
    if (ex.response?.status !== 200) throw new Error(`test-control API ${path} answered ${ex.response?.status ?? 'nothing'}`);
    return ex.response.json as T;
  }
  return {
    async now() {
      const { now } = await get<{ now?: unknown }>('/clock');
      if (typeof now !== 'string' || Number.isNaN(Date.parse(now))) throw new Error('test-control API /clock answered no date-time "now"');
      return new Date(now);
    },
    async advanceClock(seconds) {
      const ex = await http.request({ method: 'POST', url: `${controlUrl}/clock/advance`, json: { seconds }, label: 'control clock' });
      if (ex.response?.status !== 200) throw new Error(`test-control API clock/advance answered ${ex.response?.status ?? 'nothing'}`);
    },
    outbox: () => get<Outbox>('/outbox'),
    stats: () => get<Stats>('/stats'),
    async createTenant() {
      // Not idempotent (each call creates one): sent once, never retried.
      const ex = await http.request({ method: 'POST', url: `${controlUrl}/tenants`, json: {}, label: 'control tenants' });
      const grant = ex.response?.json as Partial<TenantGrant> | undefined;
      if (ex.response?.status !== 201 || typeof grant?.id !== 'string' || !grant.business?.clientId || !grant.account?.user) {
        throw new Error(`test-control API POST /tenants answered ${ex.response?.status ?? 'nothing'} without a tenant id and credentials`);
      }
      return { grant: grant as TenantGrant, control: createControl(http, `${controlUrl}/tenants/${encodeURIComponent(grant.id)}`) };
    },
  };
}

/**
 * Client of the sandbox's test-control API (outside the spec; docs/decisions.md). Suites use it only when the
 * capability probe found it, and skip with a reason otherwise.
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

export interface Control {
  /** The target's clock, which runs ahead of ours once advanced. */
  now(): Promise<Date>;
  advanceClock(seconds: number): Promise<void>;
  outbox(): Promise<Outbox>;
  stats(): Promise<Stats>;
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
  };
}

/**
 * The contract as a run-wide observer (one fault, one finding). Every API response (`run.call`, token requests)
 * and every webhook the receiver gets is validated against spec/openapi.yaml here instead of failing the test that
 * happened to cause it: the observer counts, per operation and direction, the responses seen, those that broke the
 * contract, and per violated clause how many; it keeps the first few offending exchanges as redacted evidence with
 * their curl lines. suites/contract.test.ts (run last) turns each record into one testcase.
 *
 *   observeResponse(contract, 'createPaymentLink', ex);      // in run.call: never throws
 *   observeWebhook(contract, webhook, fieldCase);            // in the receiver's onWebhook
 *   contractRecord('createPaymentLink')                      // { seen, broken, clauses, evidence }
 *
 * The state is process-wide: the conformance project is one test file declaring every suite
 * (suites/all.conformance.ts), so every suite reports here. Nothing in it assumes one test at a time (concurrent
 * tests only add to the counts).
 */
import { contractFindings, describeExchange, webhookFindings, type ContractFinding } from '../judge/checks.ts';
import type { Contract } from '../api/contract.ts';
import { toCurl } from '../record/curl.ts';
import type { Exchange } from '../api/http.ts';
import type { CheckEvidence } from '../record/meta.ts';
import type { JudgedEvidence } from '../judge/checks.ts';
import type { ReceivedWebhook } from '../api/receiver.ts';

/** The key of the webhook direction (its operationId in spec/openapi.yaml). */
export const WEBHOOK = 'transactionSucceeded';

/** Offending exchanges kept as evidence per operation (plus the first of any clause they do not show). */
export const EVIDENCE_KEPT = 3;

export interface ClauseTally {
  /** Responses (or webhooks) that broke this clause. */
  count: number;
  /** What the first of them showed, e.g. `/idEnlace must be integer (got a string of 1 characters)`. */
  first: string;
}

export interface ContractRecord {
  operationId: string;
  seen: number;
  /** Responses with a success status (2xx), whose body the contract types; every webhook counts. */
  successes: number;
  broken: number;
  clauses: Map<string, ClauseTally>;
  evidence: JudgedEvidence[];
  /**
   * Per clause of kind description: responses whose value does not look as the spec describes it, or that leave a
   * nullable field out (WARN only).
   */
  observed: Map<string, ClauseTally>;
}

const records = new Map<string, ContractRecord>();

function recordOf(operationId: string): ContractRecord {
  let record = records.get(operationId);
  if (!record) {
    record = { operationId, seen: 0, successes: 0, broken: 0, clauses: new Map(), evidence: [], observed: new Map() };
    records.set(operationId, record);
  }
  return record;
}

function count(into: Map<string, ClauseTally>, findings: ContractFinding[]): void {
  for (const clause of new Set(findings.flatMap((f) => f.clauses))) {
    const t = into.get(clause);
    if (t) t.count++;
    else into.set(clause, { count: 1, first: findings.find((f) => f.clauses.includes(clause))!.actual });
  }
}

function tally(
  record: ContractRecord,
  all: ContractFinding[],
  success: boolean,
  evidence: () => Pick<CheckEvidence, 'exchange' | 'curl'>,
): void {
  record.seen++;
  if (success) record.successes++;
  count(
    record.observed,
    all.filter((f) => f.severity === 'observe'),
  );
  const findings = all.filter((f) => f.severity === 'fail');
  if (findings.length === 0) return;
  record.broken++;
  count(record.clauses, findings);
  const shown = new Set(record.evidence.flatMap((e) => e.clauses));
  const newClause = findings.some((f) => f.clauses.some((c) => !shown.has(c)));
  if (record.evidence.length < EVIDENCE_KEPT || (newClause && record.evidence.length < 3 * EVIDENCE_KEPT)) {
    record.evidence.push({
      check: 'contract',
      clauses: [...new Set(findings.flatMap((f) => f.clauses))],
      expected: findings[0]!.expected,
      actual: findings.map((f) => f.actual).join('; '),
      ...evidence(),
    });
  }
}

/** Validates one API response and records what it breaks; returns the findings (for information only). */
export function observeResponse(contract: Contract, operationId: string, ex: Exchange): ContractFinding[] {
  if (!ex.response) return [];
  const findings = contractFindings(contract, operationId, ex);
  const status = ex.response.status;
  tally(recordOf(operationId), findings, status >= 200 && status < 300, () => ({ exchange: describeExchange(ex), curl: toCurl(ex) }));
  return findings;
}

/** Validates one received webhook body (6.1) and records what it breaks. */
export function observeWebhook(contract: Contract, webhook: ReceivedWebhook, fieldCase: 'exact' | 'insensitive'): ContractFinding[] {
  if (webhook.oversized) return [];
  const contentType = String(webhook.headers['content-type'] ?? '');
  // Absent stays undefined: RFC 9110 lets a sender leave User-Agent out; only an empty one breaks its grammar.
  const ua = webhook.headers['user-agent'];
  const userAgent = ua === undefined ? undefined : String(ua);
  const findings = webhookFindings(contract, webhook.json, fieldCase, { bom: webhook.bom === true, contentType, userAgent });
  tally(recordOf(WEBHOOK), findings, true, () => ({ exchange: describeExchange(asExchange(webhook)) }));
  return findings;
}

/** A received webhook shown like an exchange: the target's POST as the receiver got it. */
function asExchange(w: ReceivedWebhook): Exchange {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(w.headers)) if (v !== undefined && /^(content-type|user-agent|x-)/i.test(k)) headers[k] = String(v);
  return {
    id: `webhook-${w.at.getTime()}`,
    label: 'webhook received',
    request: { method: w.method, url: `http://receiver${w.path}`, headers, bodyText: w.rawBody.toString('utf8') },
    attempts: 1,
    durationMs: 0,
  };
}

/** The record of an operation (or WEBHOOK), or undefined when nothing of it was seen in this process. */
export function contractRecord(operationId: string): ContractRecord | undefined {
  return records.get(operationId);
}

/** Forgets everything (the project's own tests). */
export function resetContractObserver(): void {
  records.clear();
}

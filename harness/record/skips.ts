/**
 * Why a test was not judged (SKIP), as a closed set of kinds: reports group skips by kind and say, for each, what to
 * set to run them (web-platform-tests' PRECONDITION_FAILED/NOTRUN apart from PASS/FAIL, told apart by kind). Every
 * skip names its kind where it is raised (t.skip(kind, reason)); the reason text says the particulars.
 */
export const SKIP_KINDS = {
  'credential-missing': { title: 'a credential is missing', toRun: 'set the credentials the reason names (docs/targets.md)' },
  'capability-missing': {
    title: 'the target lacks a capability',
    toRun:
      "run against a target with it (the sandbox's test-control API: clock, outbox, stats, tenants, reset) or set the setting the reason names",
  },
  'setting-off': { title: 'turned off by a setting', toRun: 'change the setting the reason names (docs/configuration.md)' },
  'opt-in-destructive': {
    title: 'destructive, opt-in',
    toRun: 'ALLOW_DESTRUCTIVE=account-deletion with DELETION_ACCOUNT_USER/DELETION_ACCOUNT_PASSWORD (a disposable account)',
  },
  'refused-by-target': {
    title: "the target refused the suite's input",
    toRun: 'SCREEN_FIELD_NAMES / SCREEN_OPTION_VALUES when the page names its inputs otherwise (.env.example)',
  },
  'page-not-driven': {
    title: 'a hosted page the payer could not drive',
    toRun: 'PAYER=browser (or auto), or SCREEN_FIELD_NAMES (.env.example)',
  },
  'page-unread': {
    title: 'a page after a payment the payer could not read, and no lookup settled',
    toRun:
      'PAYER=browser (or auto) for pages that finish by script; an account (ACCOUNT_USER) or a page naming its ' +
      'idTransaccion lets the lookup settle it (docs/targets.md)',
  },
  'no-positive-control': {
    title: 'the operation accepted no valid request in this run',
    toRun:
      "fix what the operation's own tests report (is API_BASE_URL the API's base, with its path?); a rejection is judged where a valid request is accepted",
  },
  'receiver-unreached': {
    title: "no webhook reached the suite's receiver in this run",
    toRun:
      'WEBHOOK_PUBLIC_URL: a URL at which the target reaches this machine (a tunnel), or RECEIVER_HOST/RECEIVER_PORT ' +
      'an address it can reach (docs/ci.md, webhooks from a remote service)',
  },
  'rate-limited': {
    title: 'rate limited or unavailable (429/503)',
    toRun: 'a lower MAX_RPS (requests per second; or fewer requests: FC_NUM_RUNS, fewer suites, --shard) or a run when the target is up',
  },
  'beyond-max-wait': {
    title: 'needs more real time than MAX_WAIT_S',
    toRun: 'raise MAX_WAIT_S to the seconds the reason names, or a target with clock control',
  },
  'premise-elsewhere': {
    title: 'its premise is judged by another testcase',
    toRun: 'fix what the named testcase reports; this one runs once its premise holds',
  },
  'covered-elsewhere': { title: 'covered by another variant of the test on this target', toRun: 'nothing: the variant named runs instead' },
  'nothing-to-judge': { title: 'nothing to judge in this run', toRun: 'a run that produces what the reason names (unfiltered, unsharded)' },
  undecidable: {
    title: 'the outcome could not be told',
    toRun: 'run again; the reason gives the timings or the channel that did not tell',
  },
} as const;

export type SkipKind = keyof typeof SKIP_KINDS;
export const SKIP_KIND_NAMES = Object.keys(SKIP_KINDS) as SkipKind[];

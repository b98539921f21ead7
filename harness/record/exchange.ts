/**
 * The exchange: one request and what came back, as the transport records it and the evidence, checks and errors
 * read it. Its own module so the transport (http.ts), the evidence recorder and the error classes share it without
 * importing each other.
 */
export interface ExchangeResponse {
  status: number;
  /** Lower-case names; set-cookie (and any repeated header) is an array. */
  headers: Record<string, string | string[]>;
  /** The body as UTF-8 text; binary content types are summarised as `[binary body: N bytes, <type>]`. */
  bodyText: string;
  /** The raw bytes (up to the cap). Present on the exchange `request()` returns, dropped from recorded copies. */
  bytes?: Buffer;
  /** Parsed body when the content type says JSON and it parsed, or when a textual body of another type is JSON (jsonUnlabelled). */
  json?: unknown;
  /** Why a JSON content type did not give `json` (parse error, empty or truncated body). */
  jsonError?: string;
  /** `json` was parsed from a body whose content type does not say JSON (e.g. text/plain). */
  jsonUnlabelled?: true;
  contentType: string;
  /** The body was larger than maxResponseBytes: only the first maxResponseBytes were read. */
  truncated: boolean;
}

export interface Exchange {
  id: string;
  label?: string;
  request: { method: string; url: string; headers: Record<string, string>; bodyText: string };
  response?: ExchangeResponse;
  attempts: number;
  /** The attempts before the last one, when it was sent again: what each got and how long the suite waited after it. */
  tries?: { status?: number; error?: string; waitedMs: number }[];
  durationMs: number;
  /** The last attempt: when it was sent (past the request cap) and when its answer came (epoch ms). */
  sentAt?: number;
  answeredAt?: number;
  /** On recorded (redacted) copies: a curl line reproducing the request, with secrets as shell variables. */
  curl?: string;
}

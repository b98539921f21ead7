/**
 * `REPORT_DIR/index.html`: the report for people, one self-contained file that works from file:// without a
 * network (a Content-Security-Policy forbids every fetch). The page is reporters/html/report.css and report.js,
 * inlined, and the `Summary` as JSON in a <script type="application/json">, every `<`, `>` and `&` escaped so that
 * no test name or evidence can close the element. The script builds the page with textContent only, never HTML.
 * It shows what summary.json holds, which the harness has already redacted: nothing else reaches the page.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Summary } from './records.ts';

const asset = (name: string) => readFileSync(new URL(`./html/${name}`, import.meta.url), 'utf8');

export function writeHtml(summary: Summary, dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.html'), renderHtml(summary));
}

/** JSON that is safe inside <script>: no `<`, `>` or `&` (so no `</script>` or `<!--`), no JS line separators. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

export function renderHtml(summary: Summary): string {
  const { run, line } = summary;
  const title = `Conformance report: ${line.failed > 0 ? `${line.failed} failed` : 'nothing failed'}${run.targetUrl ? ` — ${run.targetUrl}` : ''}`;
  // The CSP is the "no network" guarantee: no fetch, image, font or frame can leave the page.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>
${asset('report.css')}
</style>
</head>
<body>
<noscript><p class="noscript">This report needs JavaScript to show its data; summary.md beside it holds the same results as text.</p></noscript>
<div id="app"></div>
<script type="application/json" id="report-data">${scriptJson(summary)}</script>
<script>
${asset('report.js')}
</script>
</body>
</html>
`;
}

/**
 * npm run spec:check — validates spec/openapi.yaml (swagger-parser), lints it with spec/clauses.yaml against the
 * spec document (spec/lint.ts), and compiles it with the contract's strict ajv. Prints one line per problem
 * ("where: what") and exits 1, or prints one OK line with counts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse } from 'yaml';
import { lintSpec } from '../spec/lint.ts';
import { CLAUSES_PATH } from '../spec/clauses.ts';
import { createContract, OPENAPI_PATH } from '../harness/api/contract.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
// in CI the spec document sits beside the repository: ../shared/spec/ from the repo root
const specPath = resolve(root, '../shared/spec/payment-service-api.md');

const problems: string[] = [];
const document: unknown = await SwaggerParser.parse(fileURLToPath(OPENAPI_PATH));
try {
  await SwaggerParser.validate(structuredClone(document) as Parameters<typeof SwaggerParser.validate>[0]);
} catch (error) {
  problems.push(`spec/openapi.yaml: ${error instanceof Error ? error.message.trim().replace(/\n\s*/g, '; ') : String(error)}`);
}

let specText: string | undefined;
if (existsSync(specPath)) specText = readFileSync(specPath, 'utf8');
else console.warn(`spec:check warning: ${specPath} not found; the section and quote checks of clauses.yaml are skipped`);

let clauses: unknown;
try {
  clauses = parse(readFileSync(CLAUSES_PATH, 'utf8'));
} catch (error) {
  problems.push(`spec/clauses.yaml: not valid YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
}
const { problems: lintProblems, counts } = lintSpec({ document, clauses, specText });
problems.push(...lintProblems);

try {
  await createContract(document);
} catch (error) {
  problems.push(
    `spec/openapi.yaml: does not compile as a strict JSON Schema 2020-12 contract: ` +
      `${error instanceof Error ? error.message : String(error)}`,
  );
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`spec:check failed: ${problems.length} problem(s)`);
  process.exit(1);
}
const quotes = specText === undefined ? 'quotes not checked' : `${counts.quotesVerified} quotes verified`;
console.log(
  `spec:check OK: ${counts.operations} operations, ${counts.webhooks} webhook, ${counts.schemas} schemas, ` +
    `${counts.clauseRefs} x-clause references, ${counts.clauses} clauses (${quotes})`,
);

/**
 * The conformance project's one test file: every suite file's tests (suites/*.test.ts), each file a concurrent block
 * named by its path, then the contract testcases (suites/contract.test.ts), which report what every response of the
 * run showed — harness/run/suite-files.ts says how, and how CONFORMANCE_FILES / CONFORMANCE_SHARD select.
 */
import { readdirSync } from 'node:fs';
import { declareSuites } from '../harness/index.ts';

const names = readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.test.ts'));
declareSuites('suites', names, (name) => import(/* @vite-ignore */ `./${name}`), 'contract.test.ts');

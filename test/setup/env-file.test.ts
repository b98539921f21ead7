/**
 * Settings read back as written: every row of the variables table, given values with `#`, quotes, spaces, `=`, line
 * breaks, unicode and JSON with CSS selectors, is written by the suite's .env writers (harness/setup/env-file.ts, the
 * sandbox's sandbox/env-line.ts) and read back by dotenv to the same value; a line of the user's that dotenv would cut
 * at a `#` is a configuration error naming the variable and the quoting.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'dotenv';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { cutSettings, envLine, envValue } from '../../harness/setup/env-file.ts';
import { ConfigError, loadConfig, readEnvFile } from '../../harness/setup/config.ts';
import { SCREEN_FIELDS, VARIABLES, defaultFor, type Variable } from '../../harness/setup/variables.ts';
import { envLine as sandboxEnvLine } from '../../sandbox/env-line.ts';
import { screenRemedy } from '../../harness/run/outcome.ts';

const folder = mkdtempSync(join(tmpdir(), 'env-file-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const awkward = fc.string({
  unit: fc.constantFrom('#', "'", '"', '`', ' ', '\t', '=', '\n', '\r', '\\', 'n', 'a', 'Z', '0', 'é', 'ñ', '€', '😀', '\u00a0', ':', '$'),
  maxLength: 24,
});
const selectors = fc.constantFrom(
  '#cvc',
  'card_number',
  '[name="card.number"]',
  "input[name='cc']",
  '.cvc input',
  '#codigo-prueba',
  'form #pan',
);
const screenJson = fc.dictionary(fc.constantFrom(...SCREEN_FIELDS), selectors, { minKeys: 1, maxKeys: 4 }).map((o) => JSON.stringify(o));
const valueFor = (row: Variable) =>
  fc.oneof(
    awkward,
    fc.string({ unit: 'grapheme', maxLength: 16 }),
    screenJson,
    selectors.map((s) => `shown-in:${s}`),
    fc.constantFrom(row.example ?? '', defaultFor(row, 'remote'), defaultFor(row, 'embedded')),
  );

/** A value some quoting holds: single quotes or backticks hold all but themselves and \r; double quotes all but `"` and `\n`. */
const writable = (v: string) =>
  !/['\r]/.test(v) || !/[`\r]/.test(v) || (!v.includes('"') && !/\\[nr]/.test(v)) || /^(?![\s'"`])[^#\r\n\u2028\u2029]*(?<!\s)$/u.test(v);

describe('every variable is read back as written', () => {
  for (const row of VARIABLES as readonly Variable[]) {
    it(`${row.name}: the suite's .env line reads back the same value`, () => {
      fc.assert(
        fc.property(valueFor(row), (value) => {
          let line: string;
          try {
            line = envLine(row.name, value);
          } catch (err) {
            expect(err).toBeInstanceOf(ConfigError);
            expect(writable(value)).toBe(false);
            return;
          }
          expect(parse(`${line}\n`)[row.name]).toBe(value);
          // Among other lines, and by the check the configuration's reader makes (readEnvFile): nothing cut.
          const text = `# before\nOTHER=1\n${line}\nLAST=x\n`;
          expect(parse(text)[row.name]).toBe(value);
          expect(cutSettings(text)).toEqual([]);
          // The sandbox's own writer (sandbox/env-line.ts) agrees.
          if (!/[\r]/.test(value) && writable(value)) expect(parse(`${sandboxEnvLine(row.name, value)}\n`)[row.name]).toBe(value);
        }),
        { numRuns: 40 },
      );
    });
  }

  it('quotes only where dotenv would read something else', () => {
    expect(envValue('plain-value_1')).toBe('plain-value_1');
    expect(envValue('shown-in:#codigo-prueba')).toBe("'shown-in:#codigo-prueba'");
    expect(envValue('{"cvv":"#cvc"}')).toBe(`'{"cvv":"#cvc"}'`);
    expect(envValue("it's #1")).toBe("`it's #1`");
    expect(envValue('a\rb')).toBe('"a\\rb"');
  });
});

describe('a value dotenv would cut is a configuration error', () => {
  it('an unquoted # in a value names the variable and the quoting', () => {
    const file = join(folder, 'cut.env');
    writeFileSync(file, 'SCREEN_CHALLENGE_CODE=shown-in:#codigo-prueba\n');
    expect(() => readEnvFile(file)).toThrow(ConfigError);
    expect(() => readEnvFile(file)).toThrow(/SCREEN_CHALLENGE_CODE .*reads "shown-in:".*SCREEN_CHALLENGE_CODE='shown-in:#codigo-prueba'/);
  });

  it("a secret's value is never quoted in the message", () => {
    const file = join(folder, 'secret.env');
    writeFileSync(file, 'CLIENT_SECRET=abc#hidden-part\n');
    let message = '';
    try {
      readEnvFile(file);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/CLIENT_SECRET='<its value>'/);
    expect(message).not.toMatch(/abc|hidden-part/);
  });

  it('quoted values, comments on their own line and lines of a quoted value spanning lines are not cut', () => {
    expect(cutSettings(`# a comment\nA='x#y'\nB="#"\nC=\`#\`\nD='first\nE=#not-a-line\n'\nF=ok\n`)).toEqual([]);
    expect(cutSettings('A=x # note\n').map((c) => c.name)).toEqual(['A']);
  });

  it('SCREEN_CHALLENGE_CODE=shown-in: naming no element is refused, naming the quoting', () => {
    expect(() => loadConfig({ SCREEN_CHALLENGE_CODE: 'shown-in:' }, { dotenvPath: null })).toThrow(
      /SCREEN_CHALLENGE_CODE='shown-in:#test-code'/,
    );
  });
});

describe("a skip's remedy names the variable that would have let the test run", () => {
  it('a refused 3DS page: SCREEN_CHALLENGE_CODE first, quoted as .env needs it; any other page: SCREEN_FIELD_NAMES', () => {
    const threeds = screenRemedy('the completed 3DS payment did not go through: the page showed its form again (status 422)');
    expect(threeds).toMatch(/^set SCREEN_CHALLENGE_CODE .*SCREEN_CHALLENGE_CODE='shown-in:#code'/);
    expect(screenRemedy('the payment did not go through: the page answered 422')).toMatch(
      /^if the page's inputs are named otherwise, set SCREEN_FIELD_NAMES/,
    );
  });
});

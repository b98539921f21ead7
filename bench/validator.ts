/**
 * Cost of the contract validator: building it (parse + dereference + compiling every validator, with a fresh ajv)
 * and validating a typical transaction response. Targets: compile < 500 ms, validation < 20 µs.
 * Run: npx tsx bench/validator.ts
 */
import { pathToFileURL } from 'node:url';

const VALIDATIONS = 100_000;

/** A typical GET /TransaccionCompra/{id} response (an approved card payment). */
const transaction = {
  idTransaccion: '3a4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c7d',
  esReal: false,
  esAprobada: true,
  codigoAutorizacion: '123456',
  mensaje: null,
  formaPago: 0,
  monto: 10.5,
  montoOriginal: 10.5,
  resultadoTransaccion: 0,
  fechaTransaccion: '2026-03-01T10:00:00.000Z',
  idExterno: 'pedido-1001',
  datosAdicionales: { pedido: '1001' },
};

export async function run(): Promise<Record<string, number>> {
  let start = performance.now();
  // imported here so the module (ajv, formats, swagger-parser) loads cold when this is the first user
  const { createContract } = await import('../harness/api/contract.ts');
  const importMs = performance.now() - start;

  start = performance.now();
  const contract = await createContract();
  const compileMs = performance.now() - start;

  if (contract.validateResponse('getTransaction', 200, transaction).length > 0) throw new Error('the bench transaction does not conform');
  for (let i = 0; i < 10_000; i++) contract.validateResponse('getTransaction', 200, transaction);
  start = performance.now();
  for (let i = 0; i < VALIDATIONS; i++) contract.validateResponse('getTransaction', 200, transaction);
  const validateUs = ((performance.now() - start) * 1000) / VALIDATIONS;

  const round = (n: number, digits: number) => Number(n.toFixed(digits));
  return { import_ms: round(importMs, 1), compile_ms: round(compileMs, 1), validate_us_per_response: round(validateUs, 3) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await run()));
}

/**
 * What a payer learns during a run, kept on it (one per run, shared by PAYER=auto's two payers) rather than in the
 * process: the origins where it paid a payable page (there a page without a form is the target's answer, not one the
 * payer cannot read), each screen's submission (what resubmitScreen sends again) and the field mappings it found
 * (noted once per kind of page in the run's summary).
 */
import { FieldMappings } from './field-mapping.ts';
import { PayableOrigins } from './form.ts';
import type { Screen, Submission } from './types.ts';

export class PayerMemory {
  readonly payable = new PayableOrigins();
  /** Keyed by the screen object the test holds. */
  readonly submissions = new WeakMap<Screen, Submission>();
  readonly fields = new FieldMappings();
}

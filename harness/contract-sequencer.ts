/**
 * The test-file order of a run (vitest `sequence.sequencer`): vitest's own, except that the contract testcases
 * (suites/contract.test.ts) run after every other file, since they report what the others' responses showed,
 * and run in every shard, since each shard's observer sees only its own responses (the merge combines them).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const CONTRACT_FILE = /[\\/]suites[\\/]contract\.test\.ts$/;

const isContract = (s: TestSpecification): boolean => CONTRACT_FILE.test(s.moduleId);

export class ContractLastSequencer extends BaseSequencer {
  override async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
    const shard = await super.shard(files.filter((f) => !isContract(f)));
    return [...shard, ...files.filter(isContract)];
  }

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files.filter((f) => !isContract(f)));
    return [...sorted, ...files.filter(isContract)];
  }
}

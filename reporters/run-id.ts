/**
 * The id the shards of one run share, recorded in each shard's summary.json (`run.runId`) so that the merge can refuse
 * reports of different runs: RUN_ID when set, else the CI run's own id (the same for every job of a pipeline, and
 * kept when one job is re-run). Without either, shards carry none and the merge cannot tell runs apart.
 */
export function runIdOf(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env['RUN_ID']?.trim();
  if (given) return given;
  const ci: [string, string | undefined][] = [
    ['github', env['GITHUB_RUN_ID']],
    ['gitlab', env['CI_PIPELINE_ID']],
    ['buildkite', env['BUILDKITE_BUILD_ID']],
    ['circleci', env['CIRCLE_WORKFLOW_ID']],
    ['azure', env['BUILD_BUILDID']],
    ['bitbucket', env['BITBUCKET_PIPELINE_UUID']],
    ['jenkins', env['BUILD_TAG']],
  ];
  const found = ci.find(([, id]) => id?.trim());
  return found ? `${found[0]}:${found[1]!.trim()}` : undefined;
}

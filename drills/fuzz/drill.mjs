// One drill against a running registry: targets, cases, database snapshots around the run, summary.
// main.mjs wraps it with a child-process registry; the Jest smoke test with an in-process one.
import { generateCases, loadService } from './cases.mjs';
import { prepareTargets } from './fixture.mjs';
import { closeMcpSessions, openMcpSessions, runCases, summarise } from './run.mjs';
import { compareSnapshots, snapshotDatabase } from './snapshot.mjs';

/**
 * `registry`: { baseUrl, grpcPort, databaseUrl }; `tokens`: { admin, agent }. Returns the summary,
 * the state changes (empty when none) and the results of every case sent.
 */
export async function runDrill(
  registry,
  tokens,
  { seed, count, concurrency = 8, timeoutMs = 10_000, maxSeconds = 600, only, pick, isCrashed, onProgress, log = () => undefined },
) {
  const started = Date.now();
  const targets = await prepareTargets(registry.baseUrl, tokens.admin);
  const doc = await (await fetch(`${registry.baseUrl}/docs-json`)).json();
  const grpc = loadService();
  const generated = generateCases({ doc, grpc, targets, tokens, only }, { seed, count });
  const { operations } = generated;
  const numbered = generated.cases.map((testCase, id) => ({ ...testCase, id }));
  // --case i replays single cases of a seed (case #i is the same for any count > i).
  const cases = pick ? pick.map((i) => numbered[i]).filter(Boolean) : numbered;
  log(
    `generated ${cases.length} cases in ${Date.now() - started} ms from ${operations.rest} OpenAPI operations, ${operations.grpc} RPCs, ${operations.mcp} MCP methods`,
  );
  const sessions = await openMcpSessions(registry.baseUrl, tokens);
  const before = await snapshotDatabase(registry.databaseUrl);
  const { results, stopped } = await runCases(cases, {
    baseUrl: registry.baseUrl,
    grpcPort: registry.grpcPort,
    service: grpc.service,
    sessions,
    concurrency,
    timeoutMs,
    deadlineMs: started + maxSeconds * 1000,
    isCrashed,
    onProgress,
  });
  const crashed = isCrashed?.() ?? false;
  if (!crashed) await closeMcpSessions(registry.baseUrl, tokens, sessions);
  const after = await snapshotDatabase(registry.databaseUrl);
  return {
    summary: summarise(results),
    stateChanges: compareSnapshots(before, after),
    results,
    stopped,
    crashed,
    targets,
    elapsedMs: Date.now() - started,
  };
}

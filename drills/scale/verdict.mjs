// The multi-node drill's verdict: the recorded answers judged against the faults, the executions'
// outcomes, the tables printed and the pass criteria checked (drill.mjs gathers the facts).
import { printTable, seconds, spread } from '../support/harness.mjs';
import { outcome, tally } from '../support/stack.mjs';

/**
 * facts: { records, accepted, final, faults, loadStart, loadMs, notTerminal, twice, stuck, sameCatalog,
 * catalogStatuses, visibility, load, processes, options }.
 */
export function judge(ctx, facts) {
  const { records, accepted, final, faults, loadStart, loadMs, notTerminal, twice, stuck, sameCatalog, visibility, load, options } = facts;
  // Judging the answers: an error is fine only as a proper unavailability answer, or as a request cut
  // in flight by a replica's kill -9 (no answer can come from a process that is gone).
  const registryKills = faults.filter((f) => f.kind === 'registry');
  // A request sent before the kill and cut by it (a 2025 MCP call whose response stream had begun is only
  // failed by the client's time limit); one sent within a second after it may still have reached the dying replica.
  const cutByKill = (r) => !r.answered && registryKills.some((f) => r.sentAt <= f.at + (r.timedOut ? 0 : 1000) && r.sentAt + r.ms >= f.at);
  const errors = records.filter((r) => !r.ok);
  const improper = errors.filter((r) => !r.proper && !cutByKill(r));
  const windowOf = (i) => ({ from: faults[i].at, to: faults[i + 1]?.at ?? loadStart + loadMs });
  const faultRows = faults.map((fault, i) => {
    const { from, to } = windowOf(i);
    const inWindow = records.filter((r) => r.sentAt + r.ms >= from && r.sentAt + r.ms < to);
    const failed = inWindow.filter((r) => !r.ok);
    const lastError = Math.max(from, ...failed.map((r) => r.sentAt + r.ms));
    return {
      fault: fault.kind,
      answers: inWindow.length,
      errors: failed.length,
      'of which cut in flight': failed.filter(cutByKill).length,
      recovery: failed.length === 0 ? '0 s' : seconds(lastError - from),
      recoveryMs: failed.length === 0 ? 0 : lastError - from,
      kinds: tally(failed.map((r) => `${r.transport} ${r.label}`)).slice(0, 160),
    };
  });
  const byTransport = new Map();
  for (const r of records) {
    const row = byTransport.get(r.transport) ?? {
      transport: r.transport,
      answers: 0,
      ok: 0,
      'proper errors': 0,
      'cut in flight': 0,
      improper: 0,
      latencies: [],
    };
    row.answers++;
    if (r.ok) {
      row.ok++;
      row.latencies.push(r.ms);
    } else if (r.proper) row['proper errors']++;
    else if (cutByKill(r)) row['cut in flight']++;
    else row.improper++;
    byTransport.set(r.transport, row);
  }
  const executionsPerSecond = (accepted.size / (loadMs / 1000)).toFixed(1);
  const succeeded = [...accepted.keys()].filter((id) => final.get(id)?.status === 'SUCCEEDED').length;
  const mcpReinitialized = load.mcp.filter((m) => m.protocol === '2025').reduce((sum, m) => sum + m.reinitialized, 0);
  const unexpectedExits = facts.processes.flatMap((p) => p.exits);

  console.log('\n-- catalog changes across replicas (write on one, first seen on the other)');
  printTable(Object.entries(visibility).map(([change, ms]) => ({ change, 'seen after': ms === null ? '> 10 s' : `${ms} ms` })));
  console.log('\n-- faults');
  for (const fault of faults) console.log(`${fault.kind}: ${fault.label}`);
  printTable(faultRows.map(({ recoveryMs: _recoveryMs, ...row }) => row));
  console.log('\n-- answers by transport');
  printTable(
    [...byTransport.values()].map(({ latencies, ...row }) => {
      const s = spread(latencies);
      return { ...row, 'ok p50/p95 ms': `${s.p50 ?? '-'} / ${s.p95 ?? '-'}` };
    }),
  );
  if (improper.length > 0) console.log(`improper error answers: ${tally(improper.map((r) => `${r.transport} ${r.op} ${r.label}`))}`);
  console.log('\n-- executions');
  printTable([
    {
      accepted: accepted.size,
      'per second': executionsPerSecond,
      SUCCEEDED: succeeded,
      'not terminal': notTerminal.length,
      'ONCE run twice': twice,
      'stuck (stored)': stuck.length,
      'SSE followed to the end': `${load.state.sse?.finished ?? 0} of ${load.state.sse?.started ?? 0} (${load.state.sse?.resumed ?? 0} resumed)`,
      'MCP re-initialized': mcpReinitialized,
    },
  ]);
  console.log(`outcomes: ${tally([...accepted.keys()].map((id) => outcome(final.get(id))))}`);
  console.log(`unexpected process exits: ${unexpectedExits.length}${unexpectedExits.map((e) => `\n  ${e.name}: ${e.error}`).join('')}`);

  ctx.figure('visibility_ms', visibility);
  ctx.figure('load_seconds', Math.round(loadMs / 1000));
  ctx.figure('answers', records.length);
  ctx.figure('accepted', accepted.size);
  ctx.figure('executions_per_second', Number(executionsPerSecond));
  ctx.figure('succeeded', succeeded);
  ctx.figure(
    'faults',
    faultRows.map(({ fault, answers, errors, recoveryMs }) => ({ fault, answers, errors, recovery_ms: recoveryMs })),
  );
  ctx.figure(
    'transports',
    [...byTransport.values()].map(({ latencies, ...row }) => ({ ...row, ok_ms: spread(latencies) })),
  );
  ctx.figure('lost', notTerminal.length);
  ctx.figure('ran_twice', twice);
  ctx.figure('stuck', stuck.length);
  ctx.figure('mcp_reinitialized', mcpReinitialized);

  const slowest = Math.max(...Object.values(visibility).map((ms) => ms ?? Infinity));
  const boundMs = options.visibilityBoundMs ?? 1000;
  ctx.check(`catalog changes visible on the other replica within ${boundMs / 1000} s`, slowest <= boundMs, `slowest ${slowest} ms`);
  ctx.check('0 accepted executions lost', notTerminal.length === 0, `${notTerminal.length} of ${accepted.size} not terminal`);
  ctx.check('0 non-idempotent handlers run twice', twice === 0, `${twice}`);
  ctx.check('0 stuck after the load', stuck.length === 0, `${stuck.length} QUEUED/RUNNING`);
  ctx.check(
    'every error answer a 503 problem with Retry-After, gRPC UNAVAILABLE or a JSON-RPC/tool error naming the outage',
    improper.length === 0,
    tally(improper.map((r) => `${r.transport} ${r.op} ${r.label}`)),
  );
  ctx.check('catalog identical on both replicas', sameCatalog, sameCatalog ? '' : facts.catalogStatuses.join('/'));
  ctx.check(
    'executions accepted through every transport',
    ['rest', 'grpc', 'mcp 2025', 'mcp 2026-07-28'].every((t) => [...accepted.values()].some((a) => a.via === t)),
    tally([...accepted.values()].map((a) => a.via)),
  );
  if (registryKills.length > 0)
    ctx.check(
      'MCP session clients re-initialized after their replica died and carried on',
      mcpReinitialized > 0 && byTransport.get('mcp 2025')?.ok > 0,
      `${mcpReinitialized} re-initializations`,
    );
  ctx.check('no unexpected process exit', unexpectedExits.length === 0, `${unexpectedExits.length}`);
  return { faults: faultRows, visibility };
}

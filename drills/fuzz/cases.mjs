// The case generators of the drill, for the CLI (main.mjs) and the Jest smoke test alike: REST from
// the OpenAPI document, gRPC from the proto, MCP from what /mcp serves. Deterministic per seed.
import fc from 'fast-check';
import { grpcCases, loadService } from './grpc-cases.mjs';
import { mcpCases } from './mcp-cases.mjs';
import { restCases } from './rest-cases.mjs';

export { loadService };

/** Share of each transport among the cases. */
export const TRANSPORT_WEIGHTS = { rest: 45, grpc: 30, mcp: 25 };

/**
 * One arbitrary over every transport. `doc`: the registry's OpenAPI document; `targets`: the
 * ACTIVE and REGISTERED skills ({ name, version }); `tokens`: { admin, agent }.
 */
export function caseArbitrary({ doc, grpc, targets, tokens, only }) {
  const rest = restCases(doc, targets, tokens);
  const rpc = grpcCases(grpc.service, grpc.definition, targets, tokens);
  const mcp = mcpCases(targets, tokens);
  const all = { rest, grpc: rpc, mcp };
  const chosen = Object.entries(all).filter(([name]) => !only || only.includes(name));
  return {
    arbitrary: fc.oneof(...chosen.map(([name, { arbitrary }]) => ({ arbitrary, weight: TRANSPORT_WEIGHTS[name] }))),
    operations: Object.fromEntries(Object.entries(all).map(([name, { operations }]) => [name, operations])),
  };
}

/** `count` cases for `seed`: the same seed and count give the same cases (case #i is the same for any count ≥ i). */
export function generateCases(options, { seed, count }) {
  const { arbitrary, operations } = caseArbitrary(options);
  return { cases: fc.sample(arbitrary, { seed, numRuns: count }), operations };
}

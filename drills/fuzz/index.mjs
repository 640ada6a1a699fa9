// What the Jest smoke test (test/drills/fuzz-smoke.e2e-spec.ts) uses of the drill; typed by index.d.mts.
export { runDrill } from './drill.mjs';
export { writeEchoSkills } from './fixture.mjs';
export { formatReport, reproduction } from './run.mjs';

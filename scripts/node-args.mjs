// V8 options the services are started with, in one place: npm start (run-all.mjs), the benches, the
// drills and the tests' processes start them with these; the Dockerfiles repeat them (a test checks).
//
// The executor allocates briskly and keeps little (records go to Postgres, payloads to Redis): with
// Node's default young generation (semi-spaces of up to 16 MB) it grows ~50 MB past what it holds in
// sustained use; 4 MB semi-spaces keep it bounded, without a measurable cost in throughput
// (npm run bench:executor).
export const NODE_ARGS = {
  registry: [],
  executor: ['--max-semi-space-size=4'],
};

// V8 options the services are started with, in one place: npm start (run-all.mjs), the benches, the
// drills and the tests' processes start them with these; the Dockerfiles repeat them (a test checks).
//
// The executor allocates briskly and keeps little (records go to Postgres, payloads to Redis): with
// Node's default young generation (semi-spaces of up to 16 MB) it grows ~50 MB past what it holds in
// sustained use; 4 MB semi-spaces keep it bounded, without a measurable cost in throughput
// (npm run bench:executor). Its old generation is bounded at 1 GiB: with Node's default bound (4 GiB on
// a machine this size) V8 lets the heap grow to 4× what the last full collection kept before the next
// one, which took the executor from 165 to 278 MB RSS over 10,000 executions while it held 54 MB
// (memory.mjs; a heap snapshot at 1,000 and at 6,000 executions: 55 and 54 MB live). Under 2 GiB V8 grows
// it by less (1.6× at 1 GiB), and the executor holds a few MB per execution in flight at most.
export const NODE_ARGS = {
  registry: [],
  executor: ['--max-semi-space-size=4', '--max-old-space-size=1024'],
};

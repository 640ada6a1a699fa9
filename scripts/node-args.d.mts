/** V8 options each service process is started with (see node-args.mjs). */
export const NODE_ARGS: { registry: string[]; executor: string[] };

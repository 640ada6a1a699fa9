// The baseline of bench/registry-read: a bare Fastify process (no Nest, no hooks, no logger) that
// answers each recorded URL with the status, headers and body the registry answered it with.
// Started by main.mjs with child_process.fork; the recorded responses come over IPC, the bound port
// goes back the same way.
import Fastify from 'fastify';

// Exit normally on SIGTERM (from main.mjs), so that `node --cpu-prof` can write its profile.
process.once('SIGTERM', () => process.exit(0));

process.once('message', async ({ responses }) => {
  const byUrl = new Map(responses.map((response) => [response.url, response]));
  const app = Fastify({ logger: false });
  // One route per recorded path, so the router does the same work as the registry's.
  for (const routePath of new Set(responses.map((response) => response.url.split('?')[0]))) {
    app.get(routePath, (request, reply) => {
      const recorded = byUrl.get(request.url);
      if (!recorded) return reply.code(404).send();
      return reply.code(recorded.status).headers(recorded.headers).send(recorded.body);
    });
  }
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  process.send({ port: Number(new URL(address).port) });
});

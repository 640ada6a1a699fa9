import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localhostHostValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { SpanKind, extractTraceContext, inSpan } from '#observability/tracing.js';
import type { AdapterLogger } from './logger.js';
import type { Program, ProgramStatus } from './program.js';
import type { AdapterLimits, AdapterTool } from './tool.js';

/** One adapter: the programs it wraps and the tools it offers. */
export interface AdapterDefinition {
  /** Adapter name, the `<adapter>` of tool ids (`spice`, `calculix`, `gmsh`). */
  name: string;
  version: string;
  programs: Program[];
  tools: AdapterTool[];
}

export interface AdapterServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  limits: AdapterLimits;
  /** Largest accepted MCP request body (input files travel inside it). */
  maxRequestBytes: number;
  logger: AdapterLogger;
}

export interface RunningAdapter {
  /** The MCP endpoint, `http://host:port/mcp`. */
  url: string;
  healthUrl: string;
  port: number;
  /** Stop accepting requests, cancel calls in flight (their programs are killed) and close. */
  close(): Promise<void>;
}

/** The /healthz body. */
interface AdapterHealth {
  status: 'ok' | 'degraded';
  adapter: string;
  version: string;
  programs: ProgramStatus[];
  tools: { name: string; capability: string; category: string; available: boolean }[];
}

/** Serve an adapter: MCP over Streamable HTTP at `/mcp` (2026-07-28 and, statelessly, 2025-era clients) and `GET /healthz`. */
export async function startAdapterServer(adapter: AdapterDefinition, options: AdapterServerOptions): Promise<RunningAdapter> {
  const { logger, limits } = options;
  const factory = async (): Promise<McpServer> => {
    const server = new McpServer({ name: `${adapter.name}-adapter`, version: adapter.version });
    for (const tool of adapter.tools) {
      const status = await tool.program.probe();
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema,
          outputSchema: tool.outputSchema,
          annotations: { readOnlyHint: true, idempotentHint: tool.idempotent, openWorldHint: false },
          // Seed 001 §3.2's tool fields travel in _meta (idempotent as MCP's idempotentHint, above).
          _meta: {
            capability: tool.capability,
            category: tool.category,
            timeoutSeconds: Math.round(limits.maxRunMs / 1000),
            ...(tool.requiresFeatureFlag ? { requiresFeatureFlag: tool.requiresFeatureFlag } : {}),
            program: status.name,
            available: status.found,
            ...(status.found ? { programVersion: status.version } : { unavailableReason: tool.program.missingMessage }),
          },
        },
        // The caller's trace continues here: the executor sends its tool-call span as `_meta.traceparent`.
        (input, context) =>
          inSpan(
            `tool ${adapter.name}.${tool.name}`,
            extractTraceContext(context.mcpReq._meta as Record<string, unknown> | undefined),
            { kind: SpanKind.SERVER, attributes: { 'mcp.tool': `${adapter.name}.${tool.name}` } },
            () => tool.execute(input, context.mcpReq.signal, limits, logger),
          ),
      );
    }
    return server;
  };

  const onerror = (error: Error) => logger.warn('MCP request failed', { reason: error.message });
  const mcpHandler = createMcpHandler(factory, { onerror, maxRequestBodySize: options.maxRequestBytes });
  const mcpNodeHandler = toNodeHandler(mcpHandler, { onerror, maxRequestBodySize: options.maxRequestBytes });
  const validateHost = isLoopback(options.host) ? localhostHostValidation() : null;

  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://adapter').pathname;
    if (path === '/mcp') {
      if (validateHost && !validateHost(req, res)) return;
      void mcpNodeHandler(req, res);
      return;
    }
    if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
      void health(adapter).then((body) => sendJson(res, 200, body));
      return;
    }
    sendJson(res, 404, { error: `no route ${req.method} ${path}; MCP is served at /mcp, health at /healthz` });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const base = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  let closing: Promise<void> | null = null;
  return {
    url: `${base}/mcp`,
    healthUrl: `${base}/healthz`,
    port,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        await mcpHandler.close(); // aborts calls in flight: their programs are killed
        http.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}

/** Whether each program is installed (and its version) and which tools can run. */
async function health(adapter: AdapterDefinition): Promise<AdapterHealth> {
  const programs = await Promise.all(adapter.programs.map((program) => program.probe()));
  const tools = await Promise.all(
    adapter.tools.map(async (tool) => ({
      name: tool.name,
      capability: tool.capability,
      category: tool.category,
      available: (await tool.program.probe()).found,
    })),
  );
  return {
    status: programs.every((program) => program.found) ? 'ok' : 'degraded',
    adapter: adapter.name,
    version: adapter.version,
    programs,
    tools,
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host.startsWith('127.');
}

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { isInitializeRequest, type McpServer } from '@modelcontextprotocol/server';
import { LoadedSkills } from '../mcp-protocol/loaded-skills.js';
import type { McpConnection, McpRequestContext } from '../mcp-protocol/mcp-connection.js';
import { McpServerFactory } from './mcp-server-factory.js';
import { McpToolList } from './mcp-tool-list.js';
import { SessionTransport } from './session-transport.js';

/** Sessions closed after this long with no request and no open stream. */
const SESSION_IDLE_MS = 30 * 60 * 1000;
const MAX_SESSIONS = 1000;

interface McpSession {
  transport: SessionTransport;
  server: McpServer;
  connection: McpConnection;
  /** Requests and streams (the GET notification stream included) still open. */
  open: number;
  lastActive: number;
}

/**
 * 2025-era Streamable HTTP with sessions (the protocol MCP clients speak by default): `initialize`
 * opens a session bound to the caller's identity and the endpoint's filter; later POSTs, the GET
 * notification stream and DELETE carry its `Mcp-Session-Id`. A session belongs to the identity that
 * opened it; another token gets 404, as for an unknown session.
 */
@Injectable()
export class McpSessions {
  private readonly logger = new Logger(McpSessions.name);
  private readonly sessions = new Map<string, McpSession>();

  constructor(
    private readonly factory: McpServerFactory,
    private readonly toolList: McpToolList,
  ) {}

  async handle(request: IncomingMessage, response: ServerResponse, body: unknown, connection: McpRequestContext): Promise<void> {
    const sessionId = headerValue(request.headers['mcp-session-id']);
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      if (!session || session.connection.principal.identity !== connection.principal.identity) {
        return sendJsonRpcError(response, 404, -32001, 'Session not found: it ended or expired; send a new initialize request');
      }
      return this.serve(session, request, response, body);
    }
    if (request.method === 'POST' && isInitializeRequest(body)) return this.open(request, response, body, connection);
    return sendJsonRpcError(
      response,
      400,
      -32000,
      'Bad Request: no Mcp-Session-Id header; open a session with an initialize request first',
    );
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Sends notifications/tools/list_changed to every session whose tools changed since it was last told. */
  announceToolChanges(): void {
    for (const session of this.sessions.values()) {
      const { filter, tools } = session.connection;
      const fingerprint = this.toolList.fingerprint(filter, tools);
      if (fingerprint === tools.announced) continue;
      tools.announced = fingerprint;
      session.server.server
        .sendToolListChanged()
        .catch((error: Error) => this.logger.debug(`list_changed not delivered: ${error.message}`));
    }
  }

  /** Sends notifications/resources/list_changed or prompts/list_changed to every session. */
  announceListChanged(list: 'resources' | 'prompts'): void {
    for (const session of this.sessions.values()) {
      const server = session.server.server;
      (list === 'resources' ? server.sendResourceListChanged() : server.sendPromptListChanged()).catch((error: Error) =>
        this.logger.debug(`${list} list_changed not delivered: ${error.message}`),
      );
    }
  }

  /** Closes sessions idle for longer than SESSION_IDLE_MS. */
  sweep(now = Date.now()): void {
    for (const [id, session] of this.sessions) {
      if (session.open === 0 && now - session.lastActive > SESSION_IDLE_MS) void this.close(id);
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }

  private async open(request: IncomingMessage, response: ServerResponse, body: unknown, context: McpRequestContext): Promise<void> {
    if (this.sessions.size >= MAX_SESSIONS) this.sweep(Date.now() + SESSION_IDLE_MS);
    if (this.sessions.size >= MAX_SESSIONS) {
      return sendJsonRpcError(response, 503, -32000, `Too many MCP sessions (${MAX_SESSIONS}); close unused ones (DELETE /mcp) and retry`);
    }
    // The server keeps this object: the session id is filled in once the transport assigns it. The
    // exposure mode is fixed for the session's life (by the catalog's size when it opens, in mode auto).
    const tools = new LoadedSkills(this.toolList.modeFor(context.filter));
    const sessionConnection: McpConnection = { ...context, era: 'legacy', tools };
    tools.announced = this.toolList.fingerprint(context.filter, tools);
    const server = this.factory.create(sessionConnection);
    const session: McpSession = {
      transport: new SessionTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessionConnection.sessionId = id;
          this.sessions.set(id, session);
        },
        // DELETE: the transport closes itself (and the server with it) after this.
        onsessionclosed: (id) => void this.sessions.delete(id),
      }),
      server,
      connection: sessionConnection,
      open: 0,
      lastActive: Date.now(),
    };
    session.transport.onclose = () => {
      if (sessionConnection.sessionId) this.sessions.delete(sessionConnection.sessionId);
    };
    await server.connect(session.transport);
    await this.serve(session, request, response, body);
  }

  private async serve(session: McpSession, request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    session.open++;
    session.lastActive = Date.now();
    response.once('close', () => {
      session.open--;
      session.lastActive = Date.now();
    });
    await session.transport.handleRequest(request, response, body);
  }

  private async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    await session.server.close().catch((error: Error) => this.logger.debug(`closing MCP session ${id}: ${error.message}`));
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function sendJsonRpcError(response: ServerResponse, status: number, code: number, message: string): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const text = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { toNodeHandler, toWebRequest, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, type AuthInfo, type McpHttpHandler } from '@modelcontextprotocol/server';
import { LoadedSkills } from '../mcp-protocol/loaded-skills.js';
import type { McpConnection, McpRequestContext } from '../mcp-protocol/mcp-connection.js';
import { McpServerFactory } from './mcp-server-factory.js';
import { McpSessions, sendJsonRpcError } from './mcp-sessions.js';
import { malformedParams } from './mcp-request-check.js';
import { RegistrySkillSource } from '../mcp-skills/registry-skill-source.js';
import { McpPrompts } from '../mcp-skills/mcp-prompts.js';
import { McpToolList } from './mcp-tool-list.js';

/** How often the catalog generation is compared (it moves on every change on any replica). */
const TOOL_CHANGE_POLL_MS = 200;
const SWEEP_MS = 60_000;

/**
 * The MCP endpoint behind /mcp. Two protocol eras share one tool surface (McpServerFactory):
 * 2025-era clients (the SDKs' default) get sessions with a GET notification stream (McpSessions);
 * 2026-07-28 clients get per-request serving with `subscriptions/listen` (the SDK's
 * createMcpHandler). Tool-list changes are announced to both: the catalog generation is polled,
 * and a connection is notified only when the tools it sees changed.
 */
@Injectable()
export class McpEndpoint implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(McpEndpoint.name);
  private readonly modern: McpHttpHandler;
  private readonly modernNode: NodeMcpRequestHandler;
  private timers: NodeJS.Timeout[] = [];
  private seenGeneration = -1;
  private allToolsFingerprint: string | null = null;
  private skillsFingerprint: string | null = null;
  private promptsFingerprint: string | null = null;
  private skillAnnouncement: Promise<void> = Promise.resolve();

  constructor(
    factory: McpServerFactory,
    private readonly sessions: McpSessions,
    private readonly toolList: McpToolList,
    private readonly skills: RegistrySkillSource,
    private readonly prompts: McpPrompts,
  ) {
    const onerror = (error: Error) => this.logger.debug(`MCP request failed: ${error.message}`);
    this.modern = createMcpHandler((context) => factory.create(connectionOf(context.authInfo)), { legacy: 'reject', onerror });
    this.modernNode = toNodeHandler(this.modern, { onerror });
  }

  /** Serves one HTTP request of the endpoint; the caller has authenticated it and parsed the filter. */
  async handle(request: IncomingMessage, response: ServerResponse, body: unknown, context: McpRequestContext): Promise<void> {
    try {
      const refused = request.method === 'POST' ? malformedParams(body) : null;
      if (refused) {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(refused));
        return;
      }
      if (request.method === 'POST' && !(await isLegacyRequest(await toWebRequest(request, body), body))) {
        // Per request: its exposure mode by the catalog now; what it loaded comes with each message's _meta.
        const connection: McpConnection = { ...context, era: 'modern', tools: new LoadedSkills(this.toolList.modeFor(context.filter)) };
        (request as IncomingMessage & { auth?: AuthInfo }).auth = authInfoOf(connection);
        await this.modernNode(request, response, body);
        return;
      }
      await this.sessions.handle(request, response, body, context);
    } catch (error) {
      this.logger.error(`MCP ${request.method} failed: ${(error as Error).stack ?? String(error)}`);
      sendJsonRpcError(response, 500, -32603, 'Internal error');
    }
  }

  onApplicationBootstrap(): void {
    this.timers = [
      setInterval(() => this.announceToolChanges(), TOOL_CHANGE_POLL_MS).unref(),
      setInterval(() => this.sessions.sweep(), SWEEP_MS).unref(),
    ];
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    // A skills fingerprint still reading the store finishes before the pools close under it.
    await this.skillAnnouncement;
    // Open notification streams would otherwise keep the HTTP server from closing.
    await Promise.all([this.sessions.closeAll(), this.modern.close()]);
  }

  private announceToolChanges(): void {
    const generation = this.toolList.catalogGeneration;
    if (generation === this.seenGeneration) return;
    this.seenGeneration = generation;
    try {
      this.sessions.announceToolChanges();
      const fingerprint = this.toolList.fingerprint({}, new LoadedSkills('all'));
      // Any change of a filtered list changes the unfiltered one; listen streams are not filtered per connection.
      if (this.allToolsFingerprint !== null && fingerprint !== this.allToolsFingerprint) this.modern.notify.toolsChanged();
      this.allToolsFingerprint = fingerprint;
    } catch (error) {
      this.logger.warn(`could not announce tool changes: ${(error as Error).message}`);
    }
    this.skillAnnouncement = this.skillAnnouncement.then(() => this.announceSkillChanges());
    this.announcePromptChanges();
  }

  private announcePromptChanges(): void {
    try {
      const fingerprint = this.prompts.fingerprint();
      if (this.promptsFingerprint !== null && fingerprint !== this.promptsFingerprint) {
        this.sessions.announceListChanged('prompts');
        this.modern.notify.promptsChanged();
      }
      this.promptsFingerprint = fingerprint;
    } catch (error) {
      this.logger.warn(`could not announce prompt changes: ${(error as Error).message}`);
    }
  }

  /** Lifecycle changes reach MCP Skills clients as resources/list_changed, as tool changes do as tools/list_changed. */
  private async announceSkillChanges(): Promise<void> {
    try {
      const fingerprint = await this.skills.fingerprint();
      if (this.skillsFingerprint !== null && fingerprint !== this.skillsFingerprint) {
        this.sessions.announceListChanged('resources');
        this.modern.notify.resourcesChanged();
      }
      this.skillsFingerprint = fingerprint;
    } catch (error) {
      this.logger.warn(`could not announce skill changes: ${(error as Error).message}`);
    }
  }
}

/** 2026-era requests reach the server factory through the SDK, which passes `authInfo` through untouched. */
function authInfoOf(connection: McpConnection): AuthInfo {
  return { token: '', clientId: connection.principal.identity, scopes: [], extra: { connection } };
}

function connectionOf(authInfo: AuthInfo | undefined): McpConnection {
  const connection = authInfo?.extra?.connection as McpConnection | undefined;
  if (!connection) throw new Error('MCP request reached the server factory without a connection');
  return connection;
}

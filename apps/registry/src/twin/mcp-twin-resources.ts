import { Injectable } from '@nestjs/common';
import { type McpServer, ProtocolError, ProtocolErrorCode, ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import { isTextMediaType } from '#package-store/index.js';
import { TwinFailure, TwinStore } from '#twin/index.js';
import type { McpConnection } from '../mcp-protocol/mcp-connection.js';
import { twinUri } from './twin.presenter.js';

const LISTED = 100;

/**
 * Work products as MCP resources `twin://<branch>/<id>`, readable by hosts: resources/list shows those
 * current on the connection's branch (`/mcp?branch=`, default main), resources/read any branch's.
 */
@Injectable()
export class McpTwinResources {
  constructor(private readonly twin: TwinStore) {}

  attach(mcp: McpServer, connection: McpConnection): void {
    const branch = connection.branch ?? 'main';
    const list = async () => ({
      resources: (await this.twin.list(branch, { limit: LISTED })).map((workProduct) => ({
        uri: twinUri(workProduct.branch, workProduct.id),
        name: workProduct.name,
        title: `${workProduct.kind}: ${workProduct.name}`,
        description: `${workProduct.kind} ${workProduct.name}, revision ${workProduct.current.revision} on branch ${workProduct.branch}`,
        mimeType: workProduct.current.mediaType ?? undefined,
        size: workProduct.current.size,
      })),
    });
    mcp.registerResource(
      'twin',
      new ResourceTemplate('twin://{branch}/{id}', { list }),
      { description: 'A work product of the digital twin as current on a branch: twin://<branch>/<work product id>' },
      (uri, variables) => this.read(uri.href, String(variables.branch), String(variables.id)),
    );
  }

  private async read(uri: string, branch: string, id: string) {
    try {
      const { revision, bytes } = await this.twin.readContent(id, branch);
      const mimeType = revision.mediaType ?? 'application/octet-stream';
      const meta = { revision: revision.revision, content_hash: revision.contentHash };
      return {
        contents: [
          isTextMediaType(mimeType)
            ? { uri, mimeType, text: bytes.toString('utf8'), _meta: meta }
            : { uri, mimeType, blob: bytes.toString('base64'), _meta: meta },
        ],
      };
    } catch (error) {
      if (!(error instanceof TwinFailure)) throw error;
      if (error.reason === 'INVALID') throw new ResourceNotFoundError(uri, `${uri} names no work product: ${error.message}`);
      if (error.reason === 'WORK_PRODUCT_NOT_FOUND' || error.reason === 'BRANCH_NOT_FOUND' || error.reason === 'REVISION_NOT_FOUND') {
        throw new ResourceNotFoundError(uri, error.message);
      }
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
    }
  }
}

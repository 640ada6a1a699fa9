import { Controller, Get, Headers, Param, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isTextMediaType } from '#package-store/index.js';
import { PackageContents } from './package-contents.js';
import { contentDisposition, serveUntrustedBytes } from '../untrusted-content.js';
import { ApiContent, ApiJson, ApiNotModified, ApiProblems, BINARY } from '../openapi/api-decorators.js';
import { type PackageFilesView, packageFilesView } from './package.views.js';

/** A version's stored package, served back: immutable, so cached for good and validated by its content hash. */
@ApiTags('packages')
@Controller('v1/skills/:name/versions/:version')
export class PackageFilesController {
  constructor(private readonly contents: PackageContents) {}

  @Get('files')
  @ApiOperation({ summary: "Every file of the version's stored package: path, size, mode, sha256" })
  @ApiJson(200, packageFilesView, { description: 'The manifest of the stored package' })
  @ApiProblems('SKILL_NOT_FOUND', 'PACKAGE_NOT_STORED', 'DATABASE_UNAVAILABLE')
  async files(@Param('name') name: string, @Param('version') version: string): Promise<PackageFilesView> {
    const { contentHash, files } = await this.contents.files(name, version);
    return { name, version, content_hash: contentHash, files };
  }

  @Get('files/*')
  @ApiOperation({ summary: "One file of the version's stored package, byte for byte (ETag = its sha256)" })
  @ApiParam({ name: 'path', description: 'Package-relative path, e.g. SKILL.md or scripts/greet.py', type: String })
  @ApiContent(
    200,
    { '*/*': BINARY },
    {
      description:
        "The file's bytes in its media type (text types with charset=utf-8); immutable. The publisher's bytes: served with a sandboxing Content-Security-Policy and nosniff, and as a download (Content-Disposition) when a browser would open them as a page (HTML, SVG, XML)",
      headers: ['ETag', 'Cache-Control', 'Content-Disposition', 'Content-Security-Policy', 'X-Content-Type-Options'],
    },
  )
  @ApiNotModified()
  @ApiProblems('SKILL_NOT_FOUND', 'PACKAGE_FILE_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async file(
    @Param('name') name: string,
    @Param('version') version: string,
    @Req() request: FastifyRequest,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // Fastify's wildcard; read from the request so the document names it `path` (not `*`).
    const path = (request.params as Record<string, string>)['*'] ?? '';
    const { entry, bytes, mediaType } = await this.contents.file(name, version, path);
    const etag = `"sha256:${entry.sha256}"`;
    void reply.header('ETag', etag).header('Cache-Control', 'public, max-age=31536000, immutable');
    if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag)) {
      void reply.status(304).send();
      return;
    }
    serveUntrustedBytes(reply, mediaType, path)
      .header('Content-Type', isTextMediaType(mediaType) ? `${mediaType}; charset=utf-8` : mediaType)
      .send(bytes);
  }

  @Get('package')
  @ApiOperation({ summary: "The version's stored package as a gzip-compressed tar (ETag = content hash)" })
  @ApiContent(
    200,
    { 'application/gzip': { ...BINARY, contentMediaType: 'application/gzip' } },
    {
      description: 'The package as a gzip-compressed tar, entries at the root; immutable',
      headers: ['ETag', 'Cache-Control', 'Content-Disposition', 'Content-Security-Policy', 'X-Content-Type-Options'],
    },
  )
  @ApiNotModified()
  @ApiProblems('SKILL_NOT_FOUND', 'PACKAGE_NOT_STORED', 'DATABASE_UNAVAILABLE')
  async package(
    @Param('name') name: string,
    @Param('version') version: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { contentHash, archive } = await this.contents.archive(name, version);
    const etag = `"${contentHash}"`;
    void reply.header('ETag', etag).header('Cache-Control', 'public, max-age=31536000, immutable');
    if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag)) {
      void reply.status(304).send();
      return;
    }
    void serveUntrustedBytes(reply, 'application/gzip', '')
      .header('Content-Type', 'application/gzip')
      .header('Content-Disposition', contentDisposition(`${name}-${version}.tar.gz`))
      .send(archive);
  }
}

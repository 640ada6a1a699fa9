import { Body, Controller, Get, Headers, Inject, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { serveUntrustedBytes } from '../untrusted-content.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TwinStore, twinLimitsOf } from '#twin/index.js';
import { isTextMediaType } from '#package-store/index.js';
import { AnyToken, CurrentPrincipal } from '../auth/auth.guard.js';
import type { Principal } from '../auth/principal.js';
import { TwinUseCases } from './twin-use-cases.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ApiContent, ApiJson, ApiNotModified, ApiProblems, ApiQueryParams, BINARY } from '../openapi/api-decorators.js';
import {
  type BranchWire,
  type ConstraintsWire,
  type ProvenanceWire,
  type RevisionWire,
  type WorkProductWire,
  branchListView,
  branchView,
  constraintsView,
  provenanceView,
  revisionListView,
  revisionView,
  workProductListView,
  workProductView,
} from './twin.views.js';
import {
  CREATE_BRANCH_SCHEMA,
  SET_CONSTRAINTS_SCHEMA,
  branchListQuery,
  contentQuery,
  revisionUploadQuery,
  uploadQuery,
  workProductListQuery,
  parseBranchListQuery,
  parseConstraintsBody,
  parseContentQuery,
  parseCreateBranchBody,
  parseRevisionParam,
  parseWorkProductListQuery,
} from './twin.dto.js';
import { presentBranch, presentConstraints, presentProvenance, presentRevision, presentWorkProduct } from './twin.presenter.js';
import { ApiUploadBody, METADATA_HEADER_DESCRIPTION, METADATA_QUERY_DESCRIPTION } from './twin-upload-docs.js';
import { METADATA_HEADER, readWorkProductUpload } from './twin-upload-request.js';

/**
 * The digital twin over REST: branches, work products (raw uploads, downloads with the content hash
 * as ETag), constraints and provenance. Reads follow the read rule; writes need a known token and
 * are recorded with its identity.
 */
@ApiTags('twin')
@Controller('v1/twin')
export class TwinController {
  constructor(
    private readonly twin: TwinStore,
    private readonly useCases: TwinUseCases,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('branches')
  @ApiOperation({ summary: 'Branches of the twin, by name (promotion branches only with include_promotion=true)' })
  @ApiQueryParams(branchListQuery, {
    cursor: 'next_cursor of the previous page',
    limit: 'Page size, 1–100 (default 50)',
    include_promotion: 'true: also the branches promotions ran their examples on',
  })
  @ApiJson(200, branchListView, { description: 'A page of branches' })
  @ApiProblems('DATABASE_UNAVAILABLE')
  async branches(@Query() rawQuery: unknown): Promise<{ items: BranchWire[]; next_cursor: string | null }> {
    const query = parseBranchListQuery(rawQuery);
    const items = await this.twin.listBranches({
      includePromotion: query.include_promotion === 'true',
      after: query.cursor,
      limit: query.limit,
    });
    return { items: items.map(presentBranch), next_cursor: items.length === query.limit ? (items.at(-1)?.name ?? null) : null };
  }

  @Post('branches')
  @AnyToken()
  @ApiOperation({ summary: 'Create a branch from another (default main) as it was at a moment (default now): 201' })
  @ApiBody({ schema: CREATE_BRANCH_SCHEMA })
  @ApiJson(201, branchView, { description: 'The new branch', headers: ['Location'] })
  @ApiProblems('TWIN_BRANCH_NOT_FOUND', 'TWIN_BRANCH_EXISTS', 'DATABASE_UNAVAILABLE')
  async createBranch(
    @Body() rawBody: unknown,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BranchWire> {
    const body = parseCreateBranchBody(rawBody);
    const branch = await this.twin.createBranch(
      { name: body.name, from: body.from, at: body.at ? new Date(body.at) : undefined },
      principal,
    );
    reply.status(201).header('Location', `/v1/twin/branches/${branch.name}`);
    return presentBranch(branch);
  }

  @Get('branches/:branch')
  @ApiOperation({ summary: 'One branch' })
  @ApiJson(200, branchView, { description: 'The branch' })
  @ApiProblems('TWIN_BRANCH_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async branch(@Param('branch') branch: string): Promise<BranchWire> {
    return presentBranch(await this.twin.branch(branch));
  }

  @Get('branches/:branch/work-products')
  @ApiOperation({
    summary: 'Work products current on the branch (archived ones hidden; archived=true lists only those), by id; filter by kind or name',
  })
  @ApiQueryParams(workProductListQuery, {
    kind: 'Only work products of this kind',
    name: 'Only work products of this name',
    cursor: 'next_cursor of the previous page',
    limit: 'Page size, 1–100 (default 50)',
    archived:
      'true: only the work products archived on the branch (`current` is their archival marker; their revisions stay readable by number, a new revision restores one)',
  })
  @ApiJson(200, workProductListView, { description: 'A page of work products, by id' })
  @ApiProblems('TWIN_BRANCH_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async workProducts(
    @Param('branch') branch: string,
    @Query() rawQuery: unknown,
  ): Promise<{ items: WorkProductWire[]; next_cursor: string | null }> {
    const query = parseWorkProductListQuery(rawQuery);
    const items = await this.twin.list(branch, {
      kind: query.kind,
      name: query.name,
      after: query.cursor,
      limit: query.limit,
      archived: query.archived === 'true',
    });
    return { items: items.map(presentWorkProduct), next_cursor: items.length === query.limit ? (items.at(-1)?.id ?? null) : null };
  }

  @Post('branches/:branch/work-products')
  @AnyToken()
  @ApiOperation({
    summary:
      'Upload a new work product: the raw content as the body, its media type as Content-Type (or the JSON form): 201 with revision 1',
    description:
      '413 TWIN_TOO_LARGE over TWIN_MAX_REVISION_BYTES or the branch quota; 415 for forms or a missing media type. ' +
      'Metadata goes in the query, the X-Twin-Metadata header or the JSON form; only the JSON form takes it up to its full 16 KiB.',
  })
  @ApiUploadBody('work-product')
  @ApiHeader({ name: METADATA_HEADER, required: false, description: METADATA_HEADER_DESCRIPTION })
  @ApiQueryParams(uploadQuery, {
    kind: 'cad_model, mesh, netlist, pcb, simulation_result, report, ... (lower_snake_case); required with raw content',
    name: 'The name of the work product; required with raw content',
    metadata: METADATA_QUERY_DESCRIPTION,
  })
  @ApiJson(201, workProductView, { description: 'The new work product at revision 1', headers: ['Location'] })
  @ApiProblems('TWIN_BRANCH_NOT_FOUND', 'TWIN_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'MALFORMED_JSON', 'DATABASE_UNAVAILABLE')
  async upload(
    @Param('branch') branch: string,
    @Query() rawQuery: unknown,
    @Req() request: FastifyRequest,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WorkProductWire> {
    const upload = await readWorkProductUpload(request, rawQuery, 'work-product', twinLimitsOf(this.config));
    const created = await this.twin.put({ branch, ...upload }, principal);
    reply.status(201).header('Location', `/v1/twin/branches/${created.branch}/work-products/${created.id}`);
    return presentWorkProduct(created);
  }

  @Get('branches/:branch/work-products/:id')
  @ApiOperation({ summary: 'A work product as current on the branch' })
  @ApiJson(200, workProductView, { description: 'The work product' })
  @ApiProblems('TWIN_BRANCH_NOT_FOUND', 'WORK_PRODUCT_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async workProduct(@Param('branch') branch: string, @Param('id') id: string): Promise<WorkProductWire> {
    return presentWorkProduct(await this.twin.require(id, branch));
  }

  @Post('branches/:branch/work-products/:id/revisions')
  @AnyToken()
  @ApiOperation({
    summary: 'Upload a new revision on the branch: 201, or 200 when the content, media type and metadata equal the current revision',
    description:
      'A revision of a work product archived on the branch restores it there (201). The raw content or the JSON form, ' +
      'as for a new work product (without kind and name).',
  })
  @ApiUploadBody('revision')
  @ApiHeader({ name: METADATA_HEADER, required: false, description: METADATA_HEADER_DESCRIPTION })
  @ApiQueryParams(revisionUploadQuery, { metadata: METADATA_QUERY_DESCRIPTION })
  @ApiJson(201, workProductView, { description: 'A new revision was written' })
  @ApiJson(200, workProductView, { description: 'Nothing changed: content, media type and metadata equal the current revision' })
  @ApiProblems(
    'TWIN_BRANCH_NOT_FOUND',
    'WORK_PRODUCT_NOT_FOUND',
    'TWIN_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    'MALFORMED_JSON',
    'DATABASE_UNAVAILABLE',
  )
  async uploadRevision(
    @Param('branch') branch: string,
    @Param('id') id: string,
    @Query() rawQuery: unknown,
    @Req() request: FastifyRequest,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WorkProductWire> {
    const upload = await readWorkProductUpload(request, rawQuery, 'revision', twinLimitsOf(this.config));
    const written = await this.twin.put({ branch, id, ...upload }, principal);
    reply.status(written.written ? 201 : 200);
    return presentWorkProduct(written);
  }

  @Get('branches/:branch/work-products/:id/revisions')
  @ApiOperation({
    summary: 'Revisions of the work product visible on the branch, newest first; also of one archived there (its archival marker first)',
  })
  @ApiJson(200, revisionListView, { description: 'The revisions' })
  @ApiProblems('TWIN_BRANCH_NOT_FOUND', 'WORK_PRODUCT_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async revisions(@Param('branch') branch: string, @Param('id') id: string): Promise<{ items: RevisionWire[] }> {
    return { items: (await this.twin.revisions(id, branch)).map(presentRevision) };
  }

  @Get('branches/:branch/work-products/:id/content')
  @ApiOperation({
    summary: 'The content of the current (or ?revision=) revision, byte for byte; ETag = its content hash, 304 on If-None-Match',
    description:
      'A numbered revision stays readable when the work product is archived on the branch; the current one is then 404 ' +
      'WORK_PRODUCT_NOT_FOUND (hidden), and the number of its archival marker 404 REVISION_NOT_FOUND (no content).',
  })
  @ApiQueryParams(contentQuery, { revision: 'A revision number (default: the current revision); readable when archived too' })
  @ApiContent(
    200,
    { '*/*': BINARY },
    {
      description:
        'The bytes in their media type; a numbered revision is cached as immutable, the current one is revalidated. Written by a handler or an agent: served with a sandboxing Content-Security-Policy and nosniff, and as a download when a browser would open them as a page (HTML, SVG, XML)',
      headers: ['ETag', 'X-Revision', 'Cache-Control', 'Content-Disposition', 'Content-Security-Policy', 'X-Content-Type-Options'],
    },
  )
  @ApiNotModified()
  @ApiProblems('TWIN_BRANCH_NOT_FOUND', 'WORK_PRODUCT_NOT_FOUND', 'REVISION_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async content(
    @Param('branch') branch: string,
    @Param('id') id: string,
    @Query() rawQuery: unknown,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { revision: asked } = parseContentQuery(rawQuery);
    const { revision, bytes } = await this.twin.readContent(id, branch, asked);
    const etag = `"${revision.contentHash as string}"`;
    void reply.header('ETag', etag).header('X-Revision', String(revision.revision));
    // A numbered revision never changes; "the current one" does.
    void reply.header('Cache-Control', asked !== undefined ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag)) {
      void reply.status(304).send();
      return;
    }
    const mediaType = revision.mediaType as string;
    void serveUntrustedBytes(reply, mediaType, id)
      .header('Content-Type', isTextMediaType(mediaType) && !mediaType.includes('charset') ? `${mediaType}; charset=utf-8` : mediaType)
      .send(bytes);
  }

  @Post('branches/:branch/work-products/:id/archive')
  @AnyToken()
  @ApiOperation({
    summary: 'Archive the work product on the branch: hidden there from now on, its revisions kept; a new revision restores it',
  })
  @ApiJson(201, revisionView, { description: 'Archived: the archival marker, a new revision' })
  @ApiProblems('TWIN_BRANCH_NOT_FOUND', 'WORK_PRODUCT_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async archive(@Param('branch') branch: string, @Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<RevisionWire> {
    return presentRevision(await this.twin.archive(id, branch, principal));
  }

  @Get('branches/:branch/work-products/:id/constraints')
  @ApiOperation({ summary: 'The constraints current on the branch (empty when none are set)' })
  @ApiJson(200, constraintsView, { description: 'The constraints' })
  @ApiProblems('TWIN_BRANCH_NOT_FOUND', 'WORK_PRODUCT_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async constraints(@Param('branch') branch: string, @Param('id') id: string): Promise<ConstraintsWire> {
    const { workProduct, constraints } = await this.twin.constraints(id, branch);
    return presentConstraints(workProduct, constraints);
  }

  @Put('branches/:branch/work-products/:id/constraints')
  @AnyToken()
  @ApiOperation({
    summary: "Set the work product's constraints on the branch (a new constraints revision); each is checked against its kind's schema",
  })
  @ApiBody({ schema: SET_CONSTRAINTS_SCHEMA })
  @ApiJson(200, constraintsView, { description: 'The constraints now current (a new constraints revision)' })
  @ApiProblems('TWIN_BRANCH_NOT_FOUND', 'WORK_PRODUCT_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async setConstraints(
    @Param('branch') branch: string,
    @Param('id') id: string,
    @Body() rawBody: unknown,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ConstraintsWire> {
    const body = parseConstraintsBody(rawBody);
    const { product, written } = await this.useCases.setConstraints(id, branch, body.constraints, principal);
    return presentConstraints(product, written);
  }

  @Get('work-products/:id/revisions/:revision/provenance')
  @ApiOperation({
    summary:
      'Who wrote a revision (identity, execution, and what that execution read: content revisions and the constraints revisions the result was judged against) and which executions read it',
  })
  @ApiJson(200, provenanceView, { description: 'The provenance of the revision' })
  @ApiProblems('WORK_PRODUCT_NOT_FOUND', 'REVISION_NOT_FOUND', 'DATABASE_UNAVAILABLE')
  async provenance(@Param('id') id: string, @Param('revision') revision: string): Promise<ProvenanceWire> {
    return presentProvenance(await this.twin.provenance(id, parseRevisionParam(revision)));
  }
}

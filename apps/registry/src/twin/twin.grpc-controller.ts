import { GrpcController } from '../grpc/grpc-controller.js';
import { GrpcMethod, Payload } from '@nestjs/microservices';
import { TwinStore } from '#twin/index.js';
import type { Principal } from '../auth/principal.js';
import { parseExecutionId } from '../executions/executions.dto.js';
import { GrpcAnyToken, GrpcCaller } from '../grpc/grpc-auth.guard.js';
import { required } from '../grpc/grpc-fields.js';
import type { ProtoStruct } from '../grpc/proto-values.js';
import { GRPC_TWIN_SERVICE } from '../grpc/registry-grpc-server.js';
import { TwinUseCases } from './twin-use-cases.js';
import {
  branchMessage,
  constraintsMessage,
  contentMessage,
  executionTwinAccessMessage,
  provenanceMessage,
  revisionMessage,
  workProductMessage,
} from './twin.grpc-messages.js';
import {
  type CreateBranchRequest,
  type ListBranchesRequest,
  type ListWorkProductsRequest,
  type PutWorkProductRequest,
  type WorkProductRequest,
  parseContentRevision,
  parseCreateBranch,
  parseListBranches,
  parseListWorkProducts,
  parseProvenance,
  parsePutWorkProduct,
  parseSetConstraints,
  parseWorkProductRef,
} from './twin.grpc-requests.js';

/**
 * The digital twin over gRPC (service Twin): the store calls behind /v1/twin and
 * /v1/executions/{id}/twin, with the same rules. Reads follow the read rule; writes need a known
 * token (GrpcAnyToken, REST's AnyToken) and are recorded with its identity.
 */
@GrpcController()
export class TwinGrpcController {
  constructor(
    private readonly twin: TwinStore,
    private readonly useCases: TwinUseCases,
  ) {}

  @GrpcMethod(GRPC_TWIN_SERVICE, 'ListBranches')
  async listBranches(@Payload() request: ListBranchesRequest) {
    const query = parseListBranches(request);
    const items = await this.twin.listBranches(query);
    return { items: items.map(branchMessage), next_cursor: items.length === query.limit ? (items.at(-1)?.name ?? '') : '' };
  }

  @GrpcMethod(GRPC_TWIN_SERVICE, 'CreateBranch')
  @GrpcAnyToken()
  async createBranch(@Payload() request: CreateBranchRequest, @GrpcCaller() principal: Principal) {
    return branchMessage(await this.twin.createBranch(parseCreateBranch(request), principal));
  }

  @GrpcMethod(GRPC_TWIN_SERVICE, 'GetBranch')
  async getBranch(@Payload() request: { name?: string }) {
    return branchMessage(await this.twin.branch(required(request.name, 'name')));
  }

  @GrpcMethod(GRPC_TWIN_SERVICE, 'PutWorkProduct')
  @GrpcAnyToken()
  async putWorkProduct(@Payload() request: PutWorkProductRequest, @GrpcCaller() principal: Principal) {
    // A revision of a work product archived on the branch restores it there.
    const written = await this.twin.put(parsePutWorkProduct(request), principal);
    return { work_product: workProductMessage(written), created: written.written };
  }

  @GrpcMethod(GRPC_TWIN_SERVICE, 'ListWorkProducts')
  async listWorkProducts(@Payload() request: ListWorkProductsRequest) {
    const { branch, query } = parseListWorkProducts(request);
    const items = await this.twin.list(branch, query);
    return { items: items.map(workProductMessage), next_cursor: items.length === query.limit ? (items.at(-1)?.id ?? '') : '' };
  }

  @GrpcMethod(GRPC_TWIN_SERVICE, 'GetWorkProduct')
  async getWorkProduct(@Payload() request: WorkProductRequest) {
    const { id, branch } = parseWorkProductRef(request);
    return workProductMessage(await this.twin.require(id, branch));
  }

  @GrpcMethod(GRPC_TWIN_SERVICE, 'ListRevisions')
  async listRevisions(@Payload() request: WorkProductRequest) {
    const { id, branch } = parseWorkProductRef(request);
    return { items: (await this.twin.revisions(id, branch)).map(revisionMessage) };
  }

  @GrpcMethod(GRPC_TWIN_SERVICE, 'GetWorkProductContent')
  async getWorkProductContent(@Payload() request: WorkProductRequest & { revision?: number }) {
    const { id, branch } = parseWorkProductRef(request);
    const { workProduct, revision, bytes } = await this.twin.readContent(id, branch, parseContentRevision(request.revision));
    return contentMessage(workProduct, revision, bytes);
  }

  @GrpcMethod(GRPC_TWIN_SERVICE, 'ArchiveWorkProduct')
  @GrpcAnyToken()
  async archiveWorkProduct(@Payload() request: WorkProductRequest, @GrpcCaller() principal: Principal) {
    const { id, branch } = parseWorkProductRef(request);
    return revisionMessage(await this.twin.archive(id, branch, principal));
  }

  @GrpcMethod(GRPC_TWIN_SERVICE, 'SetConstraints')
  @GrpcAnyToken()
  async setConstraints(@Payload() request: WorkProductRequest & { constraints?: ProtoStruct[] }, @GrpcCaller() principal: Principal) {
    const { id, branch, constraints } = parseSetConstraints(request);
    const { product, written } = await this.useCases.setConstraints(id, branch, constraints, principal);
    return constraintsMessage(product, written);
  }

  @GrpcMethod(GRPC_TWIN_SERVICE, 'GetConstraints')
  async getConstraints(@Payload() request: WorkProductRequest) {
    const { id, branch } = parseWorkProductRef(request);
    const { workProduct, constraints } = await this.twin.constraints(id, branch);
    return constraintsMessage(workProduct, constraints);
  }

  @GrpcMethod(GRPC_TWIN_SERVICE, 'GetProvenance')
  async getProvenance(@Payload() request: { id?: string; revision?: number }) {
    const { id, revision } = parseProvenance(request);
    return provenanceMessage(await this.twin.provenance(id, revision));
  }

  @GrpcMethod(GRPC_TWIN_SERVICE, 'GetExecutionTwinAccess')
  async getExecutionTwinAccess(@Payload() request: { id?: string }) {
    const { execution, access } = await this.useCases.executionAccess(parseExecutionId(required(request.id, 'id')));
    return executionTwinAccessMessage(execution, access);
  }
}

import { GrpcMethod, Payload } from '@nestjs/microservices';
import { required } from '../grpc/grpc-fields.js';
import { GRPC_SERVICE } from '../grpc/registry-grpc-server.js';
import { PackageContents } from './package-contents.js';
import { GrpcController } from '../grpc/grpc-controller.js';

/** A version's stored files over gRPC: GET …/files and …/files/{path}. */
@GrpcController()
export class PackagesGrpcController {
  constructor(private readonly contents: PackageContents) {}

  @GrpcMethod(GRPC_SERVICE, 'ListPackageFiles')
  async listPackageFiles(@Payload() request: { name?: string; version?: string }) {
    const name = required(request.name, 'name');
    const version = required(request.version, 'version');
    const { contentHash, files } = await this.contents.files(name, version);
    return { name, version, content_hash: contentHash, files };
  }

  @GrpcMethod(GRPC_SERVICE, 'GetPackageFile')
  async getPackageFile(@Payload() request: { name?: string; version?: string; path?: string }) {
    const { entry, bytes, mediaType } = await this.contents.file(
      required(request.name, 'name'),
      required(request.version, 'version'),
      required(request.path, 'path'),
    );
    return { path: entry.path, size: entry.size, sha256: entry.sha256, media_type: mediaType, content: bytes };
  }
}

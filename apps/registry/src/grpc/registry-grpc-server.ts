import path from 'node:path';
import {
  type Metadata,
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type UntypedHandleCall,
  type sendUnaryData,
} from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { Logger } from '@nestjs/common';
import { type GrpcOptions, ServerGrpc } from '@nestjs/microservices';
import { projectRoot } from '#database/paths.js';
import { reflectionPackageDefinition } from './reflection-descriptors.js';
import { checkedRequest, decodingNeverThrows } from './grpc-request-check.js';
import { messageFieldsOf, type MessageFields } from './wire-framing.js';
import { DEFAULT_TWIN_LIMITS } from '#twin/index.js';

const GRPC_PACKAGE = 'skillregistry.v1';
export const GRPC_SERVICE = 'SkillRegistry';
/** The digital twin's service, in the same package and proto file. */
export const GRPC_TWIN_SERVICE = 'Twin';

/** Package archives (PublishPackage) may be larger than grpc-js's 4 MiB default; the package limits apply after. */
const PACKAGE_REQUEST_BYTES = 32 * 1024 * 1024;
/** Room for the fields of a PutWorkProduct request beside its content (metadata is at most 16 KiB). */
const TWIN_REQUEST_HEADROOM_BYTES = 1024 * 1024;

/**
 * The largest request the server reads. A PutWorkProduct whose content is over
 * TWIN_MAX_REVISION_BYTES must reach the twin's own check (RESOURCE_EXHAUSTED TWIN_TOO_LARGE, with the limit), so the
 * limit lies above it; only a request larger still is refused by grpc-js itself (RESOURCE_EXHAUSTED,
 * from the frame's declared length, before the bytes are read).
 */
export function maxRequestBytes(twinMaxRevisionBytes: number = DEFAULT_TWIN_LIMITS.maxRevisionBytes): number {
  return Math.max(PACKAGE_REQUEST_BYTES, twinMaxRevisionBytes + TWIN_REQUEST_HEADROOM_BYTES);
}

function protoPath(): string {
  return path.join(projectRoot(), 'proto', 'skill_registry.proto');
}

/** proto-loader options shared by the server and its clients: snake_case fields like the REST JSON, enums by name. */
const PROTO_LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true } as const;

/** A unary response with trailing metadata (the deprecation notice); see RegistryGrpcServer. */
export class WithTrailers<T> {
  constructor(
    readonly response: T,
    readonly trailers: Metadata,
  ) {}
}

/**
 * Adds server reflection (v1 and v1alpha) whose index of the registry's descriptors is built on the first
 * reflection call, not at start-up: decoding, fixing (reflectionPackageDefinition) and indexing them took about
 * 0.25 s of the registry's CPU at every start, for a service that only tools like grpcurl call.
 */
function addReflectionOnDemand(server: Pick<Server, 'addService'>, definition: () => PackageDefinition): void {
  let handlers: Map<string, UntypedHandleCall> | null = null;
  const handlerFor = (methodPath: string): UntypedHandleCall => {
    if (handlers === null) {
      const built = new Map<string, UntypedHandleCall>();
      new ReflectionService(definition()).addToServer({
        addService: (service, implementation) => {
          for (const [name, method] of Object.entries(service)) built.set(method.path, implementation[name] as UntypedHandleCall);
        },
      });
      handlers = built;
    }
    const handler = handlers.get(methodPath);
    if (!handler) throw new Error(`reflection has no method ${methodPath}`);
    return handler;
  };
  // The services as the package declares them (an index of nothing costs nothing), each method handed to the real one.
  new ReflectionService({}).addToServer({
    addService: (service, implementation) => {
      const onDemand: Record<string, UntypedHandleCall> = {};
      for (const [name, method] of Object.entries(service)) {
        if (!(name in implementation)) continue;
        onDemand[name] = ((call: Parameters<UntypedHandleCall>[0], callback?: unknown) =>
          (handlerFor(method.path) as (call: unknown, callback?: unknown) => void)(call, callback)) as UntypedHandleCall;
      }
      server.addService(service, onDemand);
    },
  });
}

/**
 * Nest's gRPC server with what the registry needs beyond it: the port actually bound (GRPC_PORT=0
 * picks a free one), trailing metadata on unary responses (Nest answers with the response alone),
 * and server reflection.
 */
export class RegistryGrpcServer extends ServerGrpc {
  private readonly grpcLogger = new Logger('Grpc');
  private boundPort: number | null = null;
  /** The message types of the loaded proto, for the framing check of requests (set when Nest loads it, before services are added). */
  private readonly loaded: { types: MessageFields };

  /** `requestBytes`: the receive limit, see maxRequestBytes (pass the configured TWIN_MAX_REVISION_BYTES there). */
  constructor(
    host: string,
    port: number,
    private readonly requestBytes: number = maxRequestBytes(),
  ) {
    const loaded: { types: MessageFields } = { types: new Map() };
    const options: GrpcOptions['options'] = {
      url: `${host.includes(':') ? `[${host}]` : host}:${port}`,
      package: GRPC_PACKAGE,
      protoPath: protoPath(),
      loader: PROTO_LOADER_OPTIONS,
      onLoadPackageDefinition: (definition: PackageDefinition, server: Server) => {
        loaded.types = messageFieldsOf(definition);
        addReflectionOnDemand(server, () => reflectionPackageDefinition(definition));
      },
    };
    super(options);
    this.loaded = loaded;
  }

  /** The port the server listens on, once started. */
  get port(): number | null {
    return this.boundPort;
  }

  override async createClient(): Promise<Server> {
    const server = new Server({ 'grpc.max_receive_message_length': this.requestBytes });
    // grpc-js answers INTERNAL when a request cannot be decoded; decoding failures become a value checkedRequest refuses.
    const addService = server.addService.bind(server);
    server.addService = (service: ServiceDefinition, implementation) =>
      addService(decodingNeverThrows(service, this.loaded.types), implementation);
    this.boundPort = await new Promise<number>((resolve, reject) =>
      server.bindAsync(this.url, ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
    );
    this.grpcLogger.log(
      `gRPC ${GRPC_PACKAGE}.${GRPC_SERVICE} and .${GRPC_TWIN_SERVICE} listening on ${this.url.replace(/:\d+$/, `:${this.boundPort}`)}`,
    );
    return server;
  }

  /**
   * Every call passes the gRPC edge's checks first (decodable, storable text, bounded depth): a
   * refusal is INVALID_ARGUMENT before any handler runs, for unary and streaming calls alike.
   */
  override createServiceMethod(
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
    methodHandler: Function,
    protoNativeHandler: Parameters<ServerGrpc['createServiceMethod']>[1],
    streamType: Parameters<ServerGrpc['createServiceMethod']>[2],
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  ): Function {
    type Call = { request: unknown; emit(event: 'error', error: unknown): void };
    const method = super.createServiceMethod(methodHandler, protoNativeHandler, streamType) as (
      call: Call,
      callback?: sendUnaryData<unknown>,
    ) => unknown;
    return (call: Call, callback?: sendUnaryData<unknown>) => {
      const refusal = checkedRequest(call.request);
      if (!refusal) return method(call, callback);
      if (callback) return callback(refusal);
      call.emit('error', refusal);
    };
  }

  // Signature of the base class, which types handlers as plain functions.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  override createUnaryServiceMethod(methodHandler: Function): Function {
    const unary = super.createUnaryServiceMethod(methodHandler) as (call: unknown, callback: sendUnaryData<unknown>) => Promise<void>;
    return (call: unknown, callback: sendUnaryData<unknown>) =>
      unary(call, (error, value) =>
        value instanceof WithTrailers ? callback(null, value.response, value.trailers) : callback(error, value),
      );
  }
}

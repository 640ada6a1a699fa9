/**
 * The registry's one Postgres pool (DATABASE_POOL_SIZE connections), shared by the catalog (Prisma's pg
 * adapter), the executions, the package store and the twin; made and closed by CoreModule. LISTEN
 * connections (catalog changes, finished executions) are clients of their own, outside it.
 */
export const DATABASE_POOL = Symbol('DATABASE_POOL');

/**
 * The registry's one Postgres pool (DATABASE_POOL_SIZE connections), shared by the catalog (Prisma's pg
 * adapter), the executions, the package store and the twin; made and closed by CoreModule.
 */
export const DATABASE_POOL = Symbol('DATABASE_POOL');

/**
 * The registry's one LISTEN connection (a `PgListener`, outside the pool: a listening connection is held
 * for good), on which the catalog hears skill changes and the waiters finished executions, each on its own
 * channel; made and closed by CoreModule.
 */
export const DATABASE_LISTENER = Symbol('DATABASE_LISTENER');

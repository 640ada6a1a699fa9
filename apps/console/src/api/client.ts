import createFetchClient, { type Middleware } from 'openapi-fetch';
import createQueryClient from 'openapi-react-query';
import type { components, paths } from './openapi.gen';
import { readToken } from '../access/token';

/** The registry's types, generated from its OpenAPI document at build time (build.mjs). */
export type Schemas = components['schemas'];

/** Every call carries the signed-in token, read at the moment of the call (sign-in and sign-out apply at once). */
const bearer: Middleware = {
  onRequest({ request }) {
    const token = readToken();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
};

/** The typed client of the REST API, same origin (the registry serves the console). */
export const fetchClient = createFetchClient<paths>({ baseUrl: window.location.origin });
fetchClient.use(bearer);

/** TanStack Query hooks over the typed client: `api.useQuery('get', '/v1/skills/{name}', { params })`. */
export const api = createQueryClient(fetchClient);

/** A problem details answer (RFC 9457) as an Error, so that queries and mutations can throw it. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Schemas['ProblemDetails']> & Record<string, unknown>,
  ) {
    super(typeof problem.detail === 'string' ? problem.detail : `HTTP ${status}`);
  }
  get code(): string {
    return typeof this.problem.code === 'string' ? this.problem.code : `HTTP_${this.status}`;
  }
}

/** The data of an openapi-fetch answer, or its problem thrown as an ApiError. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || !result.response.ok) {
    const problem = typeof result.error === 'object' && result.error !== null ? (result.error as Record<string, unknown>) : {};
    throw new ApiError(result.response.status, problem);
  }
  return result.data as T;
}

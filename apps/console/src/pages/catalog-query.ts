/** The catalog's view as URL search parameters, so that a view can be shared: q, domain, agent, phase, status, tag (repeatable). */
export interface CatalogView {
  q: string;
  domain?: string;
  agent?: string;
  phase?: number;
  status?: 'DRAFT' | 'REGISTERED' | 'ACTIVE' | 'DEPRECATED' | 'ARCHIVED';
  tag: string[];
}

const STATUSES = ['DRAFT', 'REGISTERED', 'ACTIVE', 'DEPRECATED', 'ARCHIVED'] as const;

export function readCatalogView(params: URLSearchParams): CatalogView {
  const phase = Number(params.get('phase'));
  const status = params.get('status');
  return {
    q: params.get('q') ?? '',
    domain: params.get('domain') || undefined,
    agent: params.get('agent') || undefined,
    phase: phase >= 1 && phase <= 3 ? phase : undefined,
    status: STATUSES.find((known) => known === status),
    tag: params.getAll('tag').filter(Boolean),
  };
}

/** `params` with `key` set to `value` (or removed when undefined), the other keys kept. */
export function withParam(params: URLSearchParams, key: string, value: string | undefined): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete(key);
  if (value !== undefined && value !== '') next.set(key, value);
  return next;
}

import type { SetURLSearchParams } from 'react-router';
import { api } from '../api/client';
import type { CatalogView } from './catalog-query';
import { withParam } from './catalog-query';

type Single = 'domain' | 'agent' | 'phase' | 'status';

const TITLES: Record<string, string> = {
  status: 'Status',
  domain: 'Domain',
  agent: 'Agent',
  phase: 'Usable at phase',
  tag: 'Tags',
  format: 'Format',
  tools: 'Tools',
};

/** Counts of the catalog by each facet under the current query (GET /v1/facets); a click narrows the view, a second one widens it. */
export function Facets({ view, params, setParams }: { view: CatalogView; params: URLSearchParams; setParams: SetURLSearchParams }) {
  const facets = api.useQuery('get', '/v1/facets', {
    params: {
      query: {
        q: view.q.trim() || undefined,
        domain: view.domain,
        agent: view.agent,
        phase: view.phase,
        status: view.status,
        tag: view.tag.length ? view.tag : undefined,
      },
    },
  });
  const data = facets.data?.facets;
  const toggleSingle = (key: Single, value: string) => {
    const current = key === 'phase' ? String(view.phase ?? '') : (view[key] ?? '');
    setParams(withParam(params, key, current === value ? undefined : value));
  };
  const toggleTag = (value: string) => {
    const next = new URLSearchParams(params);
    next.delete('tag');
    const tags = view.tag.includes(value) ? view.tag.filter((tag) => tag !== value) : [...view.tag, value];
    for (const tag of tags) next.append('tag', tag);
    setParams(next);
  };
  if (!data) return <p className="muted">{facets.isPending ? 'Loading filters…' : ''}</p>;
  const singles: Single[] = ['status', 'domain', 'agent', 'phase'];
  return (
    <div className="facets">
      <h2 className="visually-hidden">Filters</h2>
      {singles.map((key) => (
        <fieldset key={key}>
          <legend>{TITLES[key]}</legend>
          {data[key].map((facet) => {
            const pressed = (key === 'phase' ? String(view.phase ?? '') : view[key]) === facet.value;
            return (
              <button
                key={facet.value}
                type="button"
                className="facet"
                aria-pressed={pressed}
                onClick={() => toggleSingle(key, facet.value)}
              >
                <span>{key === 'phase' ? `≤ ${facet.value}` : facet.value}</span> <span className="count">{facet.count}</span>
              </button>
            );
          })}
        </fieldset>
      ))}
      <fieldset>
        <legend>{TITLES.tag}</legend>
        {data.tag.slice(0, 24).map((facet) => (
          <button
            key={facet.value}
            type="button"
            className="facet"
            aria-pressed={view.tag.includes(facet.value)}
            onClick={() => toggleTag(facet.value)}
          >
            <span>{facet.value}</span> <span className="count">{facet.count}</span>
          </button>
        ))}
      </fieldset>
      {(['format', 'tools'] as const).map((key) => (
        <fieldset key={key}>
          <legend>{TITLES[key]}</legend>
          <ul className="plain">
            {data[key].map((facet) => (
              <li key={facet.value} className="facet static">
                <span>{facet.value}</span> <span className="count">{facet.count}</span>
              </li>
            ))}
          </ul>
        </fieldset>
      ))}
      {(view.domain || view.agent || view.phase || view.status || view.tag.length > 0) && (
        <button
          type="button"
          className="link"
          onClick={() => setParams(view.q ? new URLSearchParams({ q: view.q }) : new URLSearchParams())}
        >
          Clear filters
        </button>
      )}
    </div>
  );
}

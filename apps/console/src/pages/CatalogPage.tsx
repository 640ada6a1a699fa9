import { type FormEvent, memo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, type Schemas } from '../api/client';
import { ProblemView } from '../components/ProblemView';
import { StatusBadge } from '../components/StatusBadge';
import { Facets } from './Facets';
import { readCatalogView, withParam } from './catalog-query';

type Item = Pick<
  Schemas['SkillListItem'],
  'name' | 'version' | 'status' | 'domain' | 'agent' | 'description' | 'tags' | 'pending_dependencies' | 'deprecation'
> & {
  score?: number;
};

const PAGE = 50;
const wideAtStart = typeof window !== 'undefined' && window.matchMedia('(min-width: 901px)').matches;

/** The catalog: ranked search when there is a query (GET /v1/search), else every skill in name order (GET /v1/skills). */
export function CatalogPage() {
  const [params, setParams] = useSearchParams();
  const view = readCatalogView(params);
  const [text, setText] = useState(view.q);
  const filters = {
    domain: view.domain,
    agent: view.agent,
    phase: view.phase,
    status: view.status,
    tag: view.tag.length ? view.tag : undefined,
  };
  const ranked = view.q.trim() !== '';
  const search = api.useInfiniteQuery(
    'get',
    '/v1/search',
    { params: { query: { q: view.q, ...filters, limit: PAGE } } },
    { enabled: ranked, initialPageParam: null, getNextPageParam: (page) => page.next_cursor ?? undefined, pageParamName: 'cursor' },
  );
  const list = api.useInfiniteQuery(
    'get',
    '/v1/skills',
    { params: { query: { ...filters, limit: PAGE } } },
    { enabled: !ranked, initialPageParam: null, getNextPageParam: (page) => page.next_cursor ?? undefined, pageParamName: 'cursor' },
  );
  const query = ranked ? search : list;
  const items: Item[] = ranked
    ? (search.data?.pages ?? []).flatMap((page) => page.items)
    : (list.data?.pages ?? []).flatMap((page) => page.items);
  const total = ranked ? search.data?.pages[0]?.total : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setParams(withParam(params, 'q', text.trim() || undefined));
  };

  return (
    <div className="with-sidebar">
      <aside aria-label="Filters">
        {/* Open beside the results on a wide screen; folded above them in a narrow window. */}
        <details className="filters-box" open={wideAtStart}>
          <summary>Filters</summary>
          <Facets view={view} params={params} setParams={setParams} />
        </details>
      </aside>
      <section aria-labelledby="catalog-title">
        <h1 id="catalog-title">Catalog</h1>
        <form role="search" onSubmit={submit} className="search">
          <label htmlFor="q" className="visually-hidden">
            Search skills
          </label>
          <input
            id="q"
            type="search"
            placeholder="Search skills: name, tag, tool, description…"
            value={text}
            onChange={(event) => setText(event.target.value)}
          />
          <button type="submit" className="primary">
            Search
          </button>
        </form>
        <p className="muted" aria-live="polite">
          {query.isPending
            ? 'Loading…'
            : ranked
              ? `${total ?? items.length} ranked matches for “${view.q}”`
              : `${items.length}${query.hasNextPage ? '+' : ''} skills`}
        </p>
        <ProblemView error={query.error} />
        <ul className="cards" data-testid="catalog-results">
          {items.map((item) => (
            <SkillCard key={item.name} item={item} />
          ))}
        </ul>
        {query.hasNextPage && (
          <button type="button" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
            {query.isFetchingNextPage ? 'Loading…' : 'More'}
          </button>
        )}
      </section>
    </div>
  );
}

/** One card; memoised, so that a page appended by "More" renders only its own cards (the others keep their items). */
const SkillCard = memo(function SkillCard({ item }: { item: Item }) {
  return (
    <li className="card">
      <div className="card-head">
        <Link to={`/skills/${encodeURIComponent(item.name)}`} className="card-title">
          {item.name}
        </Link>
        <span className="muted">{item.version}</span>
        <StatusBadge status={item.status} />
        {item.score !== undefined && <span className="muted score">score {item.score}</span>}
      </div>
      <p>{item.description}</p>
      <p className="meta">
        <span>{item.domain}</span> · <span>{item.agent}</span>
        {item.tags.map((tag) => (
          <span key={tag} className="tag">
            {tag}
          </span>
        ))}
      </p>
      {item.deprecation && (
        <p className="warn">
          Deprecated{item.deprecation.reason ? `: ${item.deprecation.reason}` : ''}
          {item.deprecation.successor && <> · use {item.deprecation.successor}</>}
          {item.deprecation.sunset && <> · sunset {new Date(item.deprecation.sunset).toLocaleDateString()}</>}
        </p>
      )}
      {item.pending_dependencies.length > 0 && (
        <p className="warn">
          Waits for {item.pending_dependencies.map((dependency) => `${dependency.name} ${dependency.range}`).join(', ')}
        </p>
      )}
    </li>
  );
});

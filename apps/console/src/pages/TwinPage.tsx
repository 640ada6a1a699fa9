import { useSearchParams } from 'react-router';
import { Link } from 'react-router';
import { api, fetchClient, unwrap } from '../api/client';
import { JsonBlock } from '../components/JsonBlock';
import { ProblemView } from '../components/ProblemView';
import { withParam } from './catalog-query';
import { formatBytes } from './skill/FilesTab';
import { ScrollBox } from '../components/ScrollBox';

/** Saves a revision's content exactly as stored (GET …/content?revision=), through the typed client with the token. */
async function download(branch: string, id: string, revision: number, filename: string): Promise<void> {
  const blob = unwrap(
    await fetchClient.GET('/v1/twin/branches/{branch}/work-products/{id}/content', {
      params: { path: { branch, id }, query: { revision } },
      parseAs: 'blob',
    }),
  ) as unknown as Blob;
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = filename;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The digital twin: branches, their work products, each one's revisions (with download), constraints and provenance. */
export function TwinPage() {
  const [params, setParams] = useSearchParams();
  const branch = params.get('branch') ?? 'main';
  const workProductId = params.get('wp') ?? undefined;
  const revision = Number(params.get('rev')) || undefined;
  const branches = api.useInfiniteQuery(
    'get',
    '/v1/twin/branches',
    { params: { query: { limit: 100 } } },
    { initialPageParam: null, getNextPageParam: (page) => page.next_cursor ?? undefined, pageParamName: 'cursor' },
  );
  const products = api.useInfiniteQuery(
    'get',
    '/v1/twin/branches/{branch}/work-products',
    { params: { path: { branch }, query: { limit: 100 } } },
    { initialPageParam: null, getNextPageParam: (page) => page.next_cursor ?? undefined, pageParamName: 'cursor' },
  );
  const branchItems = (branches.data?.pages ?? []).flatMap((page) => page.items);
  const productItems = (products.data?.pages ?? []).flatMap((page) => page.items);
  return (
    <div className="stack">
      <h1>Digital twin</h1>
      <div className="twin">
        <nav aria-label="Branches" className="twin-column">
          <h2>Branches</h2>
          <ProblemView error={branches.error} />
          <ul className="plain select-list">
            {branchItems.map((item) => (
              <li key={item.name}>
                <button
                  type="button"
                  aria-current={item.name === branch ? 'true' : undefined}
                  onClick={() => setParams({ branch: item.name })}
                >
                  {item.name}
                  <span className="muted small">
                    {item.parent ? ` from ${item.parent}` : ''} · {formatBytes(item.bytes_written)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <nav aria-label="Work products" className="twin-column">
          <h2>Work products on {branch}</h2>
          <ProblemView error={products.error} />
          {productItems.length === 0 && !products.isPending && <p className="muted">None.</p>}
          <ul className="plain select-list" data-testid="work-products">
            {productItems.map((item) => (
              <li key={item.id}>
                <button
                  type="button"
                  aria-current={item.id === workProductId ? 'true' : undefined}
                  onClick={() => setParams(withParam(withParam(params, 'wp', item.id), 'rev', undefined))}
                >
                  {item.name}
                  <span className="muted small">
                    {' '}
                    {item.kind} · r{item.current.revision}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <section className="twin-detail" aria-label="Work product">
          {workProductId ? (
            <WorkProduct branch={branch} id={workProductId} revision={revision} />
          ) : (
            <p className="muted">Choose a work product.</p>
          )}
        </section>
      </div>
    </div>
  );
}

function WorkProduct({ branch, id, revision }: { branch: string; id: string; revision: number | undefined }) {
  const [params, setParams] = useSearchParams();
  const product = api.useQuery('get', '/v1/twin/branches/{branch}/work-products/{id}', { params: { path: { branch, id } } });
  const revisions = api.useQuery('get', '/v1/twin/branches/{branch}/work-products/{id}/revisions', { params: { path: { branch, id } } });
  const constraints = api.useQuery('get', '/v1/twin/branches/{branch}/work-products/{id}/constraints', {
    params: { path: { branch, id } },
  });
  const chosen = revision ?? product.data?.current.revision;
  const provenance = api.useQuery(
    'get',
    '/v1/twin/work-products/{id}/revisions/{revision}/provenance',
    { params: { path: { id, revision: String(chosen ?? 0) } } },
    { enabled: chosen !== undefined },
  );
  if (product.error) return <ProblemView error={product.error} />;
  if (!product.data) return <p className="muted">Loading…</p>;
  const name = product.data.name;
  return (
    <div className="stack">
      <h2>
        {name} <span className="muted">{product.data.kind}</span>
      </h2>
      <p className="muted small">
        <code>{product.data.uri}</code>
      </p>
      <ScrollBox label="Revisions">
        <table data-testid="revisions">
          <caption>Revisions</caption>
          <thead>
            <tr>
              <th scope="col">Revision</th>
              <th scope="col">Media type</th>
              <th scope="col" className="num">
                Size
              </th>
              <th scope="col">Written by</th>
              <th scope="col">When</th>
              <th scope="col">Content</th>
            </tr>
          </thead>
          <tbody>
            {(revisions.data?.items ?? []).map((item) => (
              <tr key={item.revision} className={item.revision === chosen ? 'hit' : undefined}>
                <th scope="row">
                  <button type="button" className="link" onClick={() => setParams(withParam(params, 'rev', String(item.revision)))}>
                    r{item.revision}
                  </button>
                  {item.archived && ' (archived)'}
                </th>
                <td>{item.media_type ?? '—'}</td>
                <td className="num">{formatBytes(item.size)}</td>
                <td>
                  {item.created_by}
                  {item.execution_id && (
                    <>
                      {' '}
                      · <Link to={`/executions/${item.execution_id}`}>{item.execution_id.slice(0, 8)}</Link>
                    </>
                  )}
                </td>
                <td>{new Date(item.created_at).toLocaleString()}</td>
                <td>
                  {item.content_hash ? (
                    <button type="button" onClick={() => void download(branch, id, item.revision, `${name}.r${item.revision}`)}>
                      Download r{item.revision}
                    </button>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
      <section aria-labelledby="constraints-title">
        <h3 id="constraints-title">Constraints</h3>
        <ProblemView error={constraints.error} />
        {constraints.data &&
          (constraints.data.revision === null ? (
            <p className="muted">None set on {branch}.</p>
          ) : (
            <JsonBlock value={constraints.data.constraints} label="Constraints" />
          ))}
      </section>
      <section aria-labelledby="provenance-title">
        <h3 id="provenance-title">Provenance of r{chosen}</h3>
        <ProblemView error={provenance.error} />
        {provenance.data && (
          <div className="stack" data-testid="provenance">
            <p>
              Written by {provenance.data.written_by.identity}
              {provenance.data.written_by.execution_id && (
                <>
                  {' '}
                  in execution{' '}
                  <Link to={`/executions/${provenance.data.written_by.execution_id}`}>{provenance.data.written_by.execution_id}</Link>
                </>
              )}
              .
            </p>
            {provenance.data.written_by.read.length > 0 && (
              <p>It read: {provenance.data.written_by.read.map((read) => `${read.work_product_id} r${read.revision}`).join(', ')}.</p>
            )}
            {provenance.data.read_by.length > 0 && (
              <p>Read by: {provenance.data.read_by.map((read) => read.execution_id.slice(0, 8)).join(', ')}.</p>
            )}
          </div>
        )}
      </section>
    </div>
  );
}

import { type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../api/client';
import { ProblemView } from '../components/ProblemView';
import { StatusBadge } from '../components/StatusBadge';
import { ScrollBox } from '../components/ScrollBox';

const STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
type Status = (typeof STATUSES)[number];

/** Executions, newest first, filtered by skill, status, session and time (the URL holds the filters). */
export function ExecutionsPage() {
  const [params, setParams] = useSearchParams();
  const status = STATUSES.find((candidate) => candidate === params.get('status')) as Status | undefined;
  const query = {
    skill: params.get('skill') || undefined,
    status,
    session_id: params.get('session_id') || undefined,
    since: params.get('since') || undefined,
    until: params.get('until') || undefined,
    limit: 50,
  };
  const list = api.useInfiniteQuery(
    'get',
    '/v1/executions',
    { params: { query } },
    { initialPageParam: null, getNextPageParam: (page) => page.next_cursor ?? undefined, pageParamName: 'cursor' },
  );
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    for (const key of ['skill', 'status', 'session_id']) {
      const value = String(form.get(key) ?? '').trim();
      if (value) next.set(key, value);
    }
    for (const key of ['since', 'until']) {
      const value = String(form.get(key) ?? '');
      if (value) next.set(key, new Date(value).toISOString());
    }
    setParams(next);
  };
  const local = (iso: string | undefined) =>
    iso ? new Date(new Date(iso).getTime() - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '';
  const items = (list.data?.pages ?? []).flatMap((page) => page.items);
  return (
    <div className="stack">
      <h1>Executions</h1>
      <form className="filters" onSubmit={submit} key={params.toString()}>
        <div className="field">
          <label htmlFor="f-skill">Skill</label>
          <input id="f-skill" name="skill" defaultValue={query.skill} />
        </div>
        <div className="field">
          <label htmlFor="f-status">Status</label>
          <select id="f-status" name="status" defaultValue={status ?? ''}>
            <option value="">any</option>
            {STATUSES.map((candidate) => (
              <option key={candidate}>{candidate}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="f-session">Session</label>
          <input id="f-session" name="session_id" defaultValue={query.session_id} />
        </div>
        <div className="field">
          <label htmlFor="f-since">Since</label>
          <input id="f-since" name="since" type="datetime-local" defaultValue={local(query.since)} />
        </div>
        <div className="field">
          <label htmlFor="f-until">Until</label>
          <input id="f-until" name="until" type="datetime-local" defaultValue={local(query.until)} />
        </div>
        <button type="submit" className="primary">
          Filter
        </button>
      </form>
      <ProblemView error={list.error} />
      <ScrollBox label="Executions">
        <table data-testid="executions">
          <caption className="visually-hidden">Executions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Execution</th>
              <th scope="col">Skill</th>
              <th scope="col">Status</th>
              <th scope="col">Caller</th>
              <th scope="col">Created</th>
              <th scope="col" className="num">
                Duration
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((execution) => (
              <tr key={execution.id}>
                <th scope="row">
                  <Link to={`/executions/${execution.id}`}>
                    <code>{execution.id.slice(0, 8)}</code>
                  </Link>
                </th>
                <td>
                  {execution.skill} {execution.version}
                </td>
                <td>
                  <StatusBadge status={execution.status} /> {execution.error && <code>{execution.error.code}</code>}
                </td>
                <td>
                  {execution.caller}
                  {execution.session_id ? ` · ${execution.session_id}` : ''}
                </td>
                <td>{new Date(execution.created_at).toLocaleString()}</td>
                <td className="num">{execution.duration_ms === null ? '—' : `${execution.duration_ms} ms`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
      {!list.isPending && items.length === 0 && <p className="muted">No executions match.</p>}
      {list.hasNextPage && (
        <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          More
        </button>
      )}
    </div>
  );
}

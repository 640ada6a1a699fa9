import { Link, useParams } from 'react-router';
import { api } from '../api/client';
import { EventList } from '../components/EventList';
import { ExecutionSummary } from '../components/ExecutionSummary';
import { ProblemView } from '../components/ProblemView';
import { useLiveExecution } from '../components/useLiveExecution';

/** One execution: its facts, output or error, every event (replayed, then live), and what it read and wrote in the twin. */
export function ExecutionPage() {
  const { id = '' } = useParams();
  const { execution, stream } = useLiveExecution(id, true);
  const twin = api.useQuery('get', '/v1/executions/{id}/twin', { params: { path: { id } } });
  const cancel = api.useMutation('post', '/v1/executions/{id}/cancel');
  if (execution.error) return <ProblemView error={execution.error} title={`No execution ${id}`} />;
  if (!execution.data) return <p className="muted">Loading…</p>;
  const running = execution.data.status === 'QUEUED' || execution.data.status === 'RUNNING';
  return (
    <div className="stack">
      <p className="crumbs">
        <Link to="/executions">Executions</Link> / {id}
      </p>
      <h1>Execution</h1>
      {running && (
        <div className="row">
          <button
            type="button"
            className="danger"
            disabled={cancel.isPending}
            onClick={() => cancel.mutate({ params: { path: { id } } }, { onSuccess: () => void execution.refetch() })}
          >
            Cancel
          </button>
          <ProblemView error={cancel.error} />
        </div>
      )}
      <ExecutionSummary execution={execution.data} />
      <EventList events={stream.events} state={stream.state} />
      <section aria-labelledby="twin-title">
        <h2 id="twin-title">Twin</h2>
        <ProblemView error={twin.error} />
        {twin.data &&
          (twin.data.read.length + twin.data.wrote.length + twin.data.constraints_read.length === 0 ? (
            <p className="muted">It read and wrote nothing in the twin.</p>
          ) : (
            <ul className="plain" data-testid="execution-twin">
              {twin.data.read.map((read, index) => (
                <li key={`r${index}`}>
                  read{' '}
                  <Link to={`/twin?branch=${encodeURIComponent(twin.data.branch)}&wp=${encodeURIComponent(read.work_product_id)}`}>
                    {read.work_product_id}
                  </Link>{' '}
                  r{read.revision} on {twin.data.branch}
                </li>
              ))}
              {twin.data.constraints_read.map((read, index) => (
                <li key={`c${index}`}>
                  read the constraints of {read.work_product_id} r{read.revision} ({read.constraints.length})
                </li>
              ))}
              {twin.data.wrote.map((write, index) => (
                <li key={`w${index}`}>
                  wrote{' '}
                  <Link to={`/twin?branch=${encodeURIComponent(write.branch)}&wp=${encodeURIComponent(write.work_product_id)}`}>
                    {write.work_product_id}
                  </Link>{' '}
                  r{write.revision} on {write.branch}
                </li>
              ))}
            </ul>
          ))}
      </section>
    </div>
  );
}

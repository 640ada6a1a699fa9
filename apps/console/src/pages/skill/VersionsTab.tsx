import { api, type Schemas } from '../../api/client';
import { ProblemView } from '../../components/ProblemView';
import { StatusBadge } from '../../components/StatusBadge';
import { CompareVersions } from './CompareVersions';

/** The version timeline (the audit log of lifecycle moves: who, when, why) and the comparison of two versions. */
export function VersionsTab({ name, versions }: { name: string; versions: Schemas['SkillVersion'][] }) {
  const history = api.useQuery('get', '/v1/skills/{name}/history', { params: { path: { name } } });
  return (
    <div className="stack">
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        <ProblemView error={history.error} />
        <ol className="timeline" data-testid="timeline">
          {[...(history.data?.items ?? [])].reverse().map((event, index) => (
            <li key={index}>
              <time dateTime={event.at}>{new Date(event.at).toLocaleString()}</time>
              <div>
                <strong>{event.version}</strong> {event.from ? <StatusBadge status={event.from} /> : 'new'} →{' '}
                <StatusBadge status={event.to} /> by <span className="actor">{event.actor}</span>
                {event.forced && <span className="badge badge-forced">forced</span>}
                {event.reason && <p className="reason">“{event.reason}”</p>}
                {Object.keys(event.evidence).length > 0 && (
                  <details>
                    <summary>Evidence</summary>
                    <pre className="json">{JSON.stringify(event.evidence, null, 2)}</pre>
                  </details>
                )}
              </div>
            </li>
          ))}
        </ol>
      </section>
      <CompareVersions name={name} versions={versions} />
    </div>
  );
}

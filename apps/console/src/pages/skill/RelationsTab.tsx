import { Link } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { BarChart } from '../../components/BarChart';
import { ProblemView } from '../../components/ProblemView';
import { DependencyGraph } from './DependencyGraph';
import { ScrollBox } from '../../components/ScrollBox';

const WINDOWS = ['7d', '30d', '90d'] as const;

/** Dependencies and dependents as a small graph; usage per version and window, and whether deprecating would strand anyone. */
export function RelationsTab({ name, version }: { name: string; version: Schemas['SkillVersion'] }) {
  const dependents = api.useQuery('get', '/v1/skills/{name}/dependents', { params: { path: { name } } });
  const usage = api.useQuery('get', '/v1/skills/{name}/usage', { params: { path: { name } } });
  const rows = usage.data?.versions ?? [];
  return (
    <div className="stack">
      <section aria-labelledby="graph-title">
        <h2 id="graph-title">Dependencies</h2>
        <ProblemView error={dependents.error} />
        <DependencyGraph name={name} dependsOn={version.depends_on} dependents={dependents.data?.items ?? []} />
        <ul className="plain">
          {version.depends_on.map((dependency) => (
            <li key={dependency.name}>
              needs <Link to={`/skills/${encodeURIComponent(dependency.name)}`}>{dependency.name}</Link> <code>{dependency.range}</code>
            </li>
          ))}
          {(dependents.data?.items ?? []).map((dependent) => (
            <li key={`${dependent.name}@${dependent.version}`}>
              <Link to={`/skills/${encodeURIComponent(dependent.name)}`}>{dependent.name}</Link> {dependent.version} needs{' '}
              <code>{dependent.range}</code>
              {dependent.satisfied_by.length === 0 ? (
                <span className="bad"> (unsatisfied)</span>
              ) : (
                ` (satisfied by ${dependent.satisfied_by.join(', ')})`
              )}
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="usage-title">
        <h2 id="usage-title">Usage</h2>
        <ProblemView error={usage.error} />
        <div className="charts">
          {WINDOWS.map((window) => (
            <BarChart
              key={window}
              title={`Executions, last ${window.replace('d', ' days')}`}
              bars={rows.map((row) => ({ label: row.version, value: row.windows[window].executions }))}
            />
          ))}
        </div>
        <ScrollBox label="Deprecation readiness">
          <table>
            <caption>Deprecation readiness: callers and sessions per version</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Status</th>
                {WINDOWS.map((window) => (
                  <th key={window} scope="col" className="num">
                    Callers {window}
                  </th>
                ))}
                <th scope="col">Last call</th>
                <th scope="col">Ready to retire</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const stranded = (dependents.data?.items ?? []).filter(
                  (dependent) => dependent.satisfied_by.length === 1 && dependent.satisfied_by[0] === row.version,
                );
                const ready = row.windows['30d'].executions === 0 && stranded.length === 0;
                return (
                  <tr key={row.version}>
                    <th scope="row">{row.version}</th>
                    <td>{row.status}</td>
                    {WINDOWS.map((window) => (
                      <td key={window} className="num">
                        {row.windows[window].callers}
                      </td>
                    ))}
                    <td>{row.last_called_at ? new Date(row.last_called_at).toLocaleString() : 'never'}</td>
                    <td className={ready ? 'ok' : 'warn-text'}>
                      {ready
                        ? 'yes: no calls in 30 days, no dependent relies on it alone'
                        : stranded.length > 0
                          ? `no: ${stranded.length} dependent(s) rely on it alone`
                          : 'no: called in the last 30 days'}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </ScrollBox>
      </section>
    </div>
  );
}

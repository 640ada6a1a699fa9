import type { Schemas } from '../api/client';
import { ScrollBox } from './ScrollBox';

type Issue = Schemas['ValidationIssue'];

/** A package's validation report: every finding with its severity, file, place and hint. */
export function ValidationReport({ report, caption }: { report: Issue[]; caption: string }) {
  if (report.length === 0) return <p className="ok">{caption}: no findings.</p>;
  return (
    <ScrollBox label={caption}>
      <table data-testid="validation-report">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Severity</th>
            <th scope="col">Where</th>
            <th scope="col">Finding</th>
          </tr>
        </thead>
        <tbody>
          {report.map((issue, index) => (
            <tr key={index}>
              <td>
                <span className={`badge badge-${issue.severity}`}>{issue.severity}</span>
              </td>
              <td>
                <code>
                  {issue.file}
                  {issue.path ? ` ${issue.path}` : ''}
                </code>{' '}
                <span className="muted">{issue.category}</span>
              </td>
              <td>
                {issue.message}
                {issue.hint && <p className="help">{issue.hint}</p>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

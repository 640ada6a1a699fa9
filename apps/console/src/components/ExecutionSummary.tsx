import { Link } from 'react-router';
import type { Schemas } from '../api/client';
import { JsonBlock } from './JsonBlock';
import { StatusBadge } from './StatusBadge';

/** An execution's facts, output and error (with its code). */
export function ExecutionSummary({ execution }: { execution: Schemas['Execution'] }) {
  return (
    <div className="stack">
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={execution.status} />
          </dd>
        </div>
        <div>
          <dt>Skill</dt>
          <dd>
            <Link to={`/skills/${encodeURIComponent(execution.skill)}`}>{execution.skill}</Link> {execution.version}
            {execution.tool ? ` · tool ${execution.tool}` : ''}
          </dd>
        </div>
        <div>
          <dt>Trace id</dt>
          <dd>
            <code data-testid="trace-id">{execution.trace_id ?? '—'}</code>
          </dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>
            {execution.attempts} of {execution.max_attempts}
          </dd>
        </div>
        <div>
          <dt>Branch</dt>
          <dd>{execution.branch}</dd>
        </div>
        <div>
          <dt>Caller</dt>
          <dd>
            {execution.caller}
            {execution.session_id ? ` · session ${execution.session_id}` : ''} · {execution.purpose}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{new Date(execution.created_at).toLocaleString()}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{execution.duration_ms === null ? '—' : `${execution.duration_ms} ms`}</dd>
        </div>
      </dl>
      {execution.warnings.map((warning) => (
        <p key={warning} className="warn">
          {warning}
        </p>
      ))}
      {execution.error && (
        <div className="problem" role="alert">
          <strong>Failed</strong> <code className="code">{execution.error.code}</code>
          <p>{execution.error.message}</p>
          {Object.keys(execution.error.details).length > 0 && <JsonBlock value={execution.error.details} label="Error details" />}
        </div>
      )}
      <div className="two-columns">
        <section>
          <h2>Input</h2>
          <JsonBlock value={execution.input} label="Input" />
        </section>
        <section>
          <h2>Output</h2>
          <JsonBlock value={execution.output} label="Output" />
        </section>
      </div>
    </div>
  );
}

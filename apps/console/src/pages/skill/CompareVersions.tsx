import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { JsonBlock } from '../../components/JsonBlock';
import { ProblemView } from '../../components/ProblemView';
import { SchemaView } from '../../components/SchemaView';
import { withParam } from '../catalog-query';
import { FileDiff } from './FileDiff';

type Change = Schemas['SchemaChange'];

/** The value at a JSON pointer (RFC 6901) of a schema, or undefined. */
function at(schema: unknown, pointer: string): unknown {
  if (pointer === '') return schema;
  let value: unknown = schema;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Two versions side by side: the compatibility report (each change pointing into both schemas) and the file diff. */
export function CompareVersions({ name, versions }: { name: string; versions: Schemas['SkillVersion'][] }) {
  const [params, setParams] = useSearchParams();
  const ordered = versions.map((version) => version.version);
  const from = params.get('from') ?? ordered[ordered.length - 2] ?? ordered[0];
  const to = params.get('to') ?? ordered[ordered.length - 1];
  const [selected, setSelected] = useState<{ side: 'input' | 'output'; change: Change } | null>(null);
  const ready = from !== undefined && to !== undefined && from !== to;
  const report = api.useQuery(
    'get',
    '/v1/skills/{name}/compatibility',
    { params: { path: { name }, query: { from: from ?? '', to: to ?? '' } } },
    { enabled: ready },
  );
  const older = versions.find((version) => version.version === from);
  const newer = versions.find((version) => version.version === to);
  return (
    <section aria-labelledby="compare-title" className="stack">
      <h2 id="compare-title">Compare versions</h2>
      {versions.length < 2 ? (
        <p className="muted">Only one version: nothing to compare.</p>
      ) : (
        <div className="row">
          <label htmlFor="compare-from">From</label>
          <select id="compare-from" value={from} onChange={(event) => setParams(withParam(params, 'from', event.target.value))}>
            {ordered.map((version) => (
              <option key={version}>{version}</option>
            ))}
          </select>
          <label htmlFor="compare-to">To</label>
          <select id="compare-to" value={to} onChange={(event) => setParams(withParam(params, 'to', event.target.value))}>
            {ordered.map((version) => (
              <option key={version}>{version}</option>
            ))}
          </select>
        </div>
      )}
      <ProblemView error={report.error} />
      {report.data && older && newer && (
        <div className="stack" data-testid="compatibility">
          <p className={report.data.compatible ? 'ok' : 'bad'}>
            {report.data.from} → {report.data.to}: {report.data.compatible ? 'compatible' : 'breaking'} under the{' '}
            <code>{report.data.policy}</code> policy
            {report.data.accepted
              ? report.data.compatible
                ? ''
                : ': accepted, the policy allows this break'
              : ': this change would be refused'}
          </p>
          {(['input', 'output'] as const).map((side) => (
            <div key={side}>
              <h3>
                {side === 'input' ? 'Input' : 'Output'}: {report.data[side].compatible ? 'compatible' : 'breaking'} (
                {report.data[side].direction})
              </h3>
              {report.data[side].changes.length === 0 ? (
                <p className="muted">No changes.</p>
              ) : (
                <ul className="changes">
                  {report.data[side].changes.map((change, index) => (
                    <li key={index}>
                      <button
                        type="button"
                        className={`change ${change.breaking ? 'breaking' : ''}`}
                        aria-pressed={selected?.change === change}
                        onClick={() => setSelected(selected?.change === change ? null : { side, change })}
                      >
                        <code>{change.code}</code> {change.breaking ? 'breaking' : 'safe'} · {change.message}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ))}
          {selected && (
            <div className="two-columns" aria-live="polite">
              <div>
                <h4>
                  {from} at <code>{selected.change.old_pointer || '/'}</code>
                </h4>
                <JsonBlock
                  value={
                    at(selected.side === 'input' ? older.input_schema : older.output_schema, selected.change.old_pointer) ?? '(absent)'
                  }
                />
              </div>
              <div>
                <h4>
                  {to} at <code>{selected.change.new_pointer || '/'}</code>
                </h4>
                <JsonBlock
                  value={
                    at(selected.side === 'input' ? newer.input_schema : newer.output_schema, selected.change.new_pointer) ?? '(absent)'
                  }
                />
              </div>
            </div>
          )}
          <div className="two-columns">
            <SchemaView
              compact
              schema={older.input_schema}
              caption={`${from} input`}
              highlight={selected?.side === 'input' ? selected.change.old_pointer : null}
            />
            <SchemaView
              compact
              schema={newer.input_schema}
              caption={`${to} input`}
              highlight={selected?.side === 'input' ? selected.change.new_pointer : null}
            />
          </div>
          <div className="two-columns">
            <SchemaView
              compact
              schema={older.output_schema}
              caption={`${from} output`}
              highlight={selected?.side === 'output' ? selected.change.old_pointer : null}
            />
            <SchemaView
              compact
              schema={newer.output_schema}
              caption={`${to} output`}
              highlight={selected?.side === 'output' ? selected.change.new_pointer : null}
            />
          </div>
          <FileDiff name={name} from={from as string} to={to as string} />
        </div>
      )}
    </section>
  );
}

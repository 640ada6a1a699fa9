import { type FormEvent, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api } from '../api/client';
import { EventList } from '../components/EventList';
import { ExecutionSummary } from '../components/ExecutionSummary';
import { ProblemView } from '../components/ProblemView';
import { SchemaForm, useSchemaValidation } from '../components/SchemaForm';
import { useLiveExecution } from '../components/useLiveExecution';

/** Run a skill: a form from its input schema, validated here first; then the execution live. */
export function RunPage() {
  const { name = '' } = useParams();
  const [params] = useSearchParams();
  const versions = api.useQuery('get', '/v1/skills/{name}/versions', { params: { path: { name } } });
  const branches = api.useQuery('get', '/v1/twin/branches', { params: { query: { limit: 100 } } });
  const runnable = (versions.data?.items ?? []).filter((version) => version.status === 'ACTIVE' || version.status === 'DEPRECATED');
  const version = runnable.find((candidate) => candidate.version === params.get('version')) ?? runnable.at(-1);
  const [toolName, setToolName] = useState('');
  const tool = version?.tools.find((candidate) => candidate.name === toolName);
  const schema = tool ? tool.input_schema : version?.input_schema;
  const examples = tool ? tool.examples : (version?.examples ?? []);
  const [input, setInput] = useState<Record<string, unknown>>({});
  const [asJson, setAsJson] = useState(false);
  const [jsonText, setJsonText] = useState('{}');
  const [jsonProblem, setJsonProblem] = useState<string | null>(null);
  const [branch, setBranch] = useState('');
  const errors = useSchemaValidation(schema ?? {}, input);
  const execute = api.useMutation('post', '/v1/skills/{name}/executions');
  const id = execute.data?.id;
  const { execution, stream } = useLiveExecution(id);

  if (versions.error) return <ProblemView error={versions.error} />;
  if (!versions.data) return <p className="muted">Loading {name}…</p>;
  if (!version) return <p>{name} has no ACTIVE or DEPRECATED version to run.</p>;

  const applyInput = (next: Record<string, unknown>) => {
    setInput(next);
    setJsonText(JSON.stringify(next, null, 2));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.length > 0 || jsonProblem) return;
    execute.mutate({
      params: { path: { name } },
      body: { input, version: version.version, tool: tool?.name, branch: branch.trim() || undefined },
    });
  };
  return (
    <div className="stack">
      <p className="crumbs">
        <Link to={`/skills/${encodeURIComponent(name)}`}>{name}</Link> / run
      </p>
      <h1>
        Run {name} <span className="muted">{version.version}</span>
      </h1>
      <form onSubmit={submit} className="stack run-form" noValidate>
        {version.tools.length > 0 && (
          <div className="field">
            <label htmlFor="tool">Tool</label>
            <select id="tool" value={toolName} onChange={(event) => setToolName(event.target.value)}>
              <option value="">(the skill)</option>
              {version.tools.map((candidate) => (
                <option key={candidate.name}>{candidate.name}</option>
              ))}
            </select>
          </div>
        )}
        <div className="row">
          {examples.map((example, index) => (
            <button key={index} type="button" onClick={() => applyInput(example.input)}>
              Use example {index + 1}
              {example.description ? `: ${example.description}` : ''}
            </button>
          ))}
          <label className="check">
            <input type="checkbox" checked={asJson} onChange={(event) => setAsJson(event.target.checked)} /> Edit as JSON
          </label>
        </div>
        {asJson ? (
          <div className="field">
            <label htmlFor="input-json">Input (JSON)</label>
            <textarea
              id="input-json"
              className="mono"
              rows={14}
              value={jsonText}
              onChange={(event) => {
                setJsonText(event.target.value);
                try {
                  const parsed: unknown = JSON.parse(event.target.value);
                  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
                    throw new Error('the input must be a JSON object');
                  setInput(parsed as Record<string, unknown>);
                  setJsonProblem(null);
                } catch (error) {
                  setJsonProblem((error as Error).message);
                }
              }}
            />
            {jsonProblem && <p className="field-errors">{jsonProblem}</p>}
          </div>
        ) : (
          <SchemaForm schema={schema} value={input} errors={errors} onChange={applyInput} />
        )}
        <div className="field">
          <label htmlFor="branch">Twin branch (optional)</label>
          <input id="branch" list="branches" value={branch} onChange={(event) => setBranch(event.target.value)} placeholder="main" />
          <datalist id="branches">
            {(branches.data?.items ?? []).map((item) => (
              <option key={item.name} value={item.name} />
            ))}
          </datalist>
        </div>
        <div aria-live="polite" data-testid="validation">
          {errors.length > 0 ? (
            <p className="bad">
              {errors.length} problem{errors.length === 1 ? '' : 's'} with the input:{' '}
              {errors.map((error) => `${error.pointer || '/'} ${error.message}`).join('; ')}
            </p>
          ) : (
            <p className="ok">The input matches the schema.</p>
          )}
        </div>
        <button type="submit" className="primary" disabled={errors.length > 0 || jsonProblem !== null || execute.isPending}>
          Run
        </button>
        <ProblemView error={execute.error} title="Not started" />
      </form>
      {id && (
        <section aria-labelledby="execution-title" className="stack">
          <h2 id="execution-title">
            Execution <Link to={`/executions/${id}`}>{id}</Link>
          </h2>
          {execution.data && <ExecutionSummary execution={execution.data} />}
          <EventList events={stream.events} state={stream.state} />
        </section>
      )}
    </div>
  );
}

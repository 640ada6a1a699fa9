import { Link, useParams, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { ProblemView } from '../../components/ProblemView';
import { StatusBadge } from '../../components/StatusBadge';
import { withParam } from '../catalog-query';
import { AdminActions } from './AdminActions';
import { ContractTab } from './ContractTab';
import { FilesTab } from './FilesTab';
import { InstructionsTab } from './InstructionsTab';
import { RelationsTab } from './RelationsTab';
import { VersionsTab } from './VersionsTab';

const TABS = [
  { id: 'contract', label: 'Contract' },
  { id: 'instructions', label: 'Instructions' },
  { id: 'files', label: 'Files' },
  { id: 'versions', label: 'Versions' },
  { id: 'usage', label: 'Usage & dependencies' },
] as const;
type TabId = (typeof TABS)[number]['id'];

export function SkillPage() {
  const { name = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const tab: TabId = TABS.find((candidate) => candidate.id === params.get('tab'))?.id ?? 'contract';
  const skill = api.useQuery('get', '/v1/skills/{name}', { params: { path: { name } } });
  const versions = api.useQuery('get', '/v1/skills/{name}/versions', { params: { path: { name } } });
  if (skill.error) return <ProblemView error={skill.error} title={`No skill ${name}`} />;
  if (!skill.data) return <p className="muted">Loading {name}…</p>;
  const current = skill.data;
  const selected = versions.data?.items.find((version) => version.version === params.get('version')) ?? current;
  const tools = current.tools_status ?? [];
  return (
    <article className="skill">
      <header className="skill-head">
        <div>
          <p className="crumbs">
            <Link to="/">Catalog</Link> / {current.domain} / {current.agent}
          </p>
          <h1>
            {current.name} <span className="muted version">{selected.version}</span> <StatusBadge status={selected.status} />
          </h1>
          <p>{selected.description}</p>
          <p className="meta">
            format {selected.format} · phase {selected.phase} · timeout {selected.timeout_seconds} s · retries {selected.retries}
            {selected.idempotent ? ' · idempotent' : ''}
            {selected.read_only ? ' · read-only' : ''}
          </p>
        </div>
        <div className="head-actions">
          <label htmlFor="version-select">Version</label>
          <select
            id="version-select"
            value={selected.version}
            onChange={(event) => setParams(withParam(params, 'version', event.target.value))}
          >
            {current.versions.map((version) => (
              <option key={version.version} value={version.version}>
                {version.version} ({version.status})
              </option>
            ))}
          </select>
          {(selected.status === 'ACTIVE' || selected.status === 'DEPRECATED') && (
            <Link className="button primary" to={`/skills/${encodeURIComponent(name)}/run?version=${encodeURIComponent(selected.version)}`}>
              Run it
            </Link>
          )}
        </div>
      </header>
      {selected.deprecation && (
        <p className="warn" role="note">
          Deprecated since {selected.deprecation.since ? new Date(selected.deprecation.since).toLocaleString() : '—'}
          {selected.deprecation.reason ? `: ${selected.deprecation.reason}` : ''}
          {selected.deprecation.successor && (
            <>
              {' '}
              · successor{' '}
              <Link to={`/skills/${encodeURIComponent(selected.deprecation.successor.split('@')[0] ?? '')}`}>
                {selected.deprecation.successor}
              </Link>
            </>
          )}
          {selected.deprecation.sunset && <> · sunset {new Date(selected.deprecation.sunset).toLocaleString()}</>}
        </p>
      )}
      {selected.pending_dependencies.length > 0 && (
        <p className="warn" role="note">
          Waits for dependencies no registered version satisfies:{' '}
          {selected.pending_dependencies.map((dependency) => `${dependency.name} ${dependency.range}`).join(', ')}
        </p>
      )}
      {tools.length > 0 && (
        <section aria-labelledby="tools-title" className="tools">
          <h2 id="tools-title">Tools required</h2>
          <ul className="plain inline">
            {tools.map((tool) => (
              <li key={tool.tool_id} className={tool.available && !tool.disabled ? 'ok' : 'bad'}>
                <code>{tool.tool_id}</code> {tool.available ? (tool.disabled ? 'disabled' : 'available') : 'unavailable'}
                {tool.required ? '' : ' (optional)'}
                {tool.reason && <span className="muted"> — {tool.reason}</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
      <AdminActions name={name} version={selected} />
      <div role="tablist" aria-label="Skill sections" className="tabs">
        {TABS.map((candidate) => (
          <button
            key={candidate.id}
            type="button"
            role="tab"
            id={`tab-${candidate.id}`}
            aria-selected={tab === candidate.id}
            aria-controls={`panel-${candidate.id}`}
            tabIndex={tab === candidate.id ? 0 : -1}
            onClick={() => setParams(withParam(params, 'tab', candidate.id))}
            onKeyDown={(event) => {
              const index = TABS.findIndex((item) => item.id === tab);
              const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
              if (!step) return;
              const next = TABS[(index + step + TABS.length) % TABS.length] as (typeof TABS)[number];
              setParams(withParam(params, 'tab', next.id));
              document.getElementById(`tab-${next.id}`)?.focus();
            }}
          >
            {candidate.label}
          </button>
        ))}
      </div>
      <section role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="panel">
        {tab === 'contract' && <ContractTab version={selected} />}
        {tab === 'instructions' && <InstructionsTab version={selected} />}
        {tab === 'files' && <FilesTab name={name} version={selected.version} />}
        {tab === 'versions' && <VersionsTab name={name} versions={versions.data?.items ?? []} />}
        {tab === 'usage' && <RelationsTab name={name} version={selected} />}
      </section>
    </article>
  );
}

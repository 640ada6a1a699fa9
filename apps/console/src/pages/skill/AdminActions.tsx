import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, type Schemas } from '../../api/client';
import { useSkillAccess } from '../../access/AccessContext';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { JsonBlock } from '../../components/JsonBlock';
import { ProblemView } from '../../components/ProblemView';

/**
 * Promote and deprecate, shown only when /v1/access says the token may (the registry still decides:
 * a forged call gets 403). Each asks for a reason and a confirmation.
 */
export function AdminActions({ name, version }: { name: string; version: Schemas['SkillVersion'] }) {
  const { mayPromote, mayDeprecate } = useSkillAccess(name);
  const [dialog, setDialog] = useState<'promote' | 'deprecate' | null>(null);
  const canPromote = mayPromote && version.status === 'REGISTERED';
  const canDeprecate = mayDeprecate && version.status === 'ACTIVE';
  if (!canPromote && !canDeprecate) return null;
  return (
    <section aria-label="Lifecycle actions" className="actions">
      {canPromote && (
        <button type="button" onClick={() => setDialog('promote')}>
          Promote {version.version}…
        </button>
      )}
      {canDeprecate && (
        <button type="button" className="danger" onClick={() => setDialog('deprecate')}>
          Deprecate {version.version}…
        </button>
      )}
      <ConfirmDialog open={dialog === 'promote'} title={`Promote ${name} ${version.version}`} onClose={() => setDialog(null)}>
        <PromoteForm name={name} version={version.version} onDone={() => setDialog(null)} />
      </ConfirmDialog>
      <ConfirmDialog open={dialog === 'deprecate'} title={`Deprecate ${name} ${version.version}`} onClose={() => setDialog(null)}>
        <DeprecateForm name={name} version={version.version} onDone={() => setDialog(null)} />
      </ConfirmDialog>
    </section>
  );
}

function useRefreshSkill(name: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ predicate: (query) => JSON.stringify(query.queryKey).includes(name) });
}

function PromoteForm({ name, version, onDone }: { name: string; version: string; onDone(): void }) {
  const promote = api.useMutation('post', '/v1/admin/skills/{name}/versions/{version}/promote');
  const history = api.useQuery('get', '/v1/skills/{name}/history', { params: { path: { name } } }, { enabled: promote.isSuccess });
  const refresh = useRefreshSkill(name);
  const [reason, setReason] = useState('');
  const [force, setForce] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    promote.mutate(
      { params: { path: { name, version } }, body: { reason: reason.trim() || undefined, force: force || undefined } },
      { onSuccess: () => void refresh() },
    );
  };
  const evidence = history.data?.items.filter((item) => item.version === version && item.to === 'ACTIVE').at(-1)?.evidence;
  if (promote.isSuccess) {
    return (
      <div className="stack" data-testid="promote-result">
        <p className="ok">
          {name} {version} is ACTIVE{force ? ' (forced)' : ''}.
        </p>
        <h3>Evidence</h3>
        {evidence ? <JsonBlock value={evidence} label="Promotion evidence" /> : <p className="muted">Loading the evidence…</p>}
        <button type="button" onClick={onDone}>
          Close
        </button>
      </div>
    );
  }
  return (
    <form onSubmit={submit} className="stack">
      <p>The registry runs the version's declared examples through the executor; it becomes ACTIVE only if they pass (unless forced).</p>
      <label htmlFor="promote-reason">Reason{force ? ' (required when forced)' : ''}</label>
      <textarea id="promote-reason" value={reason} onChange={(event) => setReason(event.target.value)} required={force} maxLength={2000} />
      <label className="check">
        <input type="checkbox" checked={force} onChange={(event) => setForce(event.target.checked)} /> Force: promote even if the evidence
        fails (recorded as forced)
      </label>
      <ProblemView error={promote.error} title="Not promoted" />
      <div className="row">
        <button type="submit" className="primary" disabled={promote.isPending}>
          {promote.isPending ? 'Running the examples…' : force ? 'Force promotion' : 'Promote'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function DeprecateForm({ name, version, onDone }: { name: string; version: string; onDone(): void }) {
  const deprecate = api.useMutation('post', '/v1/admin/skills/{name}/deprecate');
  const usage = api.useQuery('get', '/v1/skills/{name}/usage', { params: { path: { name } } });
  const refresh = useRefreshSkill(name);
  const [reason, setReason] = useState('');
  const [successor, setSuccessor] = useState('');
  const [sunset, setSunset] = useState('');
  const [confirmed, setConfirmed] = useState(false);
  const calls = usage.data?.versions.find((item) => item.version === version)?.windows;
  const dependents = usage.data?.dependents ?? [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    deprecate.mutate(
      {
        params: { path: { name } },
        body: {
          reason: reason.trim(),
          version,
          successor: successor.trim() || undefined,
          sunset: sunset ? new Date(sunset).toISOString() : undefined,
        },
      },
      {
        onSuccess: () => {
          void refresh();
          onDone();
        },
      },
    );
  };
  return (
    <form onSubmit={submit} className="stack">
      <section aria-label="Who would be affected" className="impact" data-testid="deprecate-impact">
        <h3>Before you deprecate</h3>
        {usage.isPending ? (
          <p className="muted">Loading usage…</p>
        ) : (
          <>
            <p>
              Calls of {version}:{' '}
              {calls
                ? `${calls['7d'].executions} in 7 days, ${calls['30d'].executions} in 30, ${calls['90d'].executions} in 90`
                : 'none recorded'}
              {calls ? ` (${calls['30d'].callers} callers in 30 days)` : ''}.
            </p>
            <p>
              {dependents.length === 0
                ? 'No other skill depends on it.'
                : `${dependents.length} dependent version(s): ${dependents.map((dependent) => `${dependent.name} ${dependent.version} (${dependent.range})`).join(', ')}`}
            </p>
          </>
        )}
      </section>
      <label htmlFor="deprecate-reason">Reason (shown to every caller)</label>
      <textarea id="deprecate-reason" value={reason} onChange={(event) => setReason(event.target.value)} required maxLength={2000} />
      <label htmlFor="deprecate-successor">Successor (name or name@version, optional)</label>
      <input id="deprecate-successor" value={successor} onChange={(event) => setSuccessor(event.target.value)} />
      <label htmlFor="deprecate-sunset">Sunset (optional)</label>
      <input id="deprecate-sunset" type="datetime-local" value={sunset} onChange={(event) => setSunset(event.target.value)} />
      <label className="check">
        <input type="checkbox" checked={confirmed} onChange={(event) => setConfirmed(event.target.checked)} /> I have seen who depends on it
        and who calls it
      </label>
      <ProblemView error={deprecate.error} title="Not deprecated" />
      <div className="row">
        <button type="submit" className="danger" disabled={!confirmed || deprecate.isPending}>
          Deprecate
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

import { useMutation } from '@tanstack/react-query';
import { type DragEvent, useRef, useState } from 'react';
import { Link } from 'react-router';
import { fetchClient, unwrap } from '../api/client';
import { useAccess } from '../access/AccessContext';
import { ProblemView } from '../components/ProblemView';
import { ValidationReport } from '../components/ValidationReport';
import { formatBytes } from './skill/FilesTab';

/** POST /v1/packages with the archive's bytes as they are (application/gzip), as a dry run or for real. */
async function publish(file: File, dryRun: boolean) {
  return unwrap(
    await fetchClient.POST('/v1/packages', {
      params: { query: { dry_run: dryRun ? 'true' : 'false' } },
      body: file as unknown as string,
      bodySerializer: (body: unknown) => body as BodyInit,
      headers: { 'content-type': 'application/gzip' },
    }),
  );
}

/**
 * Publish a package: drop a .tgz, read the registry's dry-run report (validation and compatibility with the
 * versions before it), and only then store it.
 */
export function PublishPage() {
  const { access } = useAccess();
  const [file, setFile] = useState<File | null>(null);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const dryRun = useMutation({ mutationFn: (chosen: File) => publish(chosen, true) });
  const store = useMutation({ mutationFn: (chosen: File) => publish(chosen, false) });
  const choose = (chosen: File | undefined) => {
    if (!chosen) return;
    setFile(chosen);
    store.reset();
    dryRun.mutate(chosen);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    choose(event.dataTransfer.files[0]);
  };
  const invalid = dryRun.error as { problem?: { report?: unknown } } | null;
  const report = dryRun.data && dryRun.data.outcome === 'valid' ? dryRun.data : null;
  if (access && !access.may.publish)
    return <p>This token may not publish (it is {access.role === 'agent' ? 'an agent' : access.role} token).</p>;
  return (
    <div className="stack">
      <h1>Publish a package</h1>
      {access?.scopes && <p className="muted">This token publishes names matching {access.scopes.join(', ')}.</p>}
      <div
        className={`dropzone ${over ? 'over' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        data-testid="dropzone"
      >
        <p>Drop a package archive (.tgz, as `skill-registry pack` writes it) here, or</p>
        <label htmlFor="package-file" className="button">
          Choose a file
        </label>
        <input
          id="package-file"
          ref={input}
          type="file"
          accept=".tgz,.tar.gz,application/gzip"
          className="visually-hidden"
          onChange={(event) => choose(event.target.files?.[0])}
        />
        {file && (
          <p>
            <strong>{file.name}</strong> · {formatBytes(file.size)}
          </p>
        )}
      </div>
      {dryRun.isPending && <p className="muted">Checking the package (dry run)…</p>}
      <section aria-live="polite" data-testid="dry-run" className="stack">
        {dryRun.error && (
          <>
            <ProblemView error={(dryRun.error as { problem?: unknown }).problem ?? dryRun.error} title="The dry run refused this package" />
            {Array.isArray(invalid?.problem?.report) && (
              <ValidationReport report={invalid.problem.report as never} caption="Validation report" />
            )}
          </>
        )}
        {report && (
          <>
            <p className="ok">
              Dry run passed: {report.name} {report.version} <span className="muted">({report.content_hash.slice(0, 19)}…)</span>. Nothing
              is stored yet.
            </p>
            <ValidationReport report={report.report} caption="Validation report" />
            {report.compatibility && (
              <p className={report.compatibility.accepted ? 'ok' : 'bad'}>
                Against {report.compatibility.from}: {report.compatibility.compatible ? 'compatible' : 'breaking'} under the{' '}
                {report.compatibility.policy} policy
                {report.compatibility.accepted ? '' : ' — would be refused'}.
              </p>
            )}
            {!store.data && (
              <button type="button" className="primary" disabled={store.isPending || !file} onClick={() => file && store.mutate(file)}>
                Store {report.name} {report.version}
              </button>
            )}
          </>
        )}
        {store.error && <ProblemView error={(store.error as { problem?: unknown }).problem ?? store.error} title="Not stored" />}
        {store.data && store.data.outcome !== 'valid' && (
          <p className="ok" data-testid="published">
            {store.data.outcome === 'new' ? 'Stored' : 'Already stored (same content)'}:{' '}
            <Link to={`/skills/${encodeURIComponent(store.data.version.name)}?version=${encodeURIComponent(store.data.version.version)}`}>
              {store.data.version.name} {store.data.version.version}
            </Link>{' '}
            ({store.data.version.status}).
          </p>
        )}
      </section>
    </div>
  );
}

import { diffLines } from 'diff';
import { useState } from 'react';
import { api } from '../../api/client';
import { useFileText } from './file-text';

/** The files of two versions by digest (added, removed, changed), and the line diff of one changed text file. */
export function FileDiff({ name, from, to }: { name: string; from: string; to: string }) {
  const older = api.useQuery('get', '/v1/skills/{name}/versions/{version}/files', { params: { path: { name, version: from } } });
  const newer = api.useQuery('get', '/v1/skills/{name}/versions/{version}/files', { params: { path: { name, version: to } } });
  const [open, setOpen] = useState<string | undefined>(undefined);
  const before = useFileText(name, from, open);
  const after = useFileText(name, to, open);
  if (!older.data || !newer.data) return <p className="muted">Loading files…</p>;
  const oldFiles = new Map(older.data.files.map((file) => [file.path, file.sha256]));
  const newFiles = new Map(newer.data.files.map((file) => [file.path, file.sha256]));
  const paths = [...new Set([...oldFiles.keys(), ...newFiles.keys()])].sort();
  const rows = paths
    .map((path) => ({
      path,
      change: !oldFiles.has(path)
        ? 'added'
        : !newFiles.has(path)
          ? 'removed'
          : oldFiles.get(path) === newFiles.get(path)
            ? 'same'
            : 'changed',
    }))
    .filter((row) => row.change !== 'same');
  const parts = open && before.data !== undefined && after.data !== undefined ? diffLines(before.data, after.data) : null;
  return (
    <section aria-labelledby="file-diff-title" className="stack">
      <h3 id="file-diff-title">Files</h3>
      {rows.length === 0 ? (
        <p className="muted">The same files, byte for byte.</p>
      ) : (
        <ul className="plain" data-testid="file-changes">
          {rows.map((row) => (
            <li key={row.path}>
              <span className={`badge badge-${row.change}`}>{row.change}</span>{' '}
              {row.change === 'changed' ? (
                <button
                  type="button"
                  className="link"
                  aria-expanded={open === row.path}
                  onClick={() => setOpen(open === row.path ? undefined : row.path)}
                >
                  {row.path}
                </button>
              ) : (
                <code>{row.path}</code>
              )}
            </li>
          ))}
        </ul>
      )}
      {open && (
        <pre className="diff" aria-label={`Diff of ${open}`} tabIndex={0} data-testid="file-diff">
          {parts === null
            ? 'Loading…'
            : parts.map((part, index) => (
                <span key={index} className={part.added ? 'added' : part.removed ? 'removed' : undefined}>
                  {part.value
                    .replace(/\n$/, '')
                    .split('\n')
                    .map((line) => `${part.added ? '+' : part.removed ? '-' : ' '} ${line}`)
                    .join('\n')}
                  {'\n'}
                </span>
              ))}
        </pre>
      )}
    </section>
  );
}

import { useState } from 'react';
import { api } from '../../api/client';
import { ProblemView } from '../../components/ProblemView';
import { useFileText } from './file-text';
import { ScrollBox } from '../../components/ScrollBox';

/** Size in words a person reads: 812 B, 12.4 KB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const TEXT_FILE = /\.(md|json|ts|js|mjs|py|yaml|yml|txt|sh|toml|cir|net|inp|geo|csv)$/i;

export function FilesTab({ name, version }: { name: string; version: string }) {
  const files = api.useQuery('get', '/v1/skills/{name}/versions/{version}/files', { params: { path: { name, version } } });
  const [open, setOpen] = useState<string | undefined>(undefined);
  const text = useFileText(name, version, open);
  if (files.error) return <ProblemView error={files.error} />;
  if (!files.data) return <p className="muted">Loading files…</p>;
  const total = files.data.files.reduce((sum, file) => sum + file.size, 0);
  return (
    <div className="stack">
      <p className="muted">
        {files.data.files.length} files, {formatBytes(total)} · content hash <code className="digest">{files.data.content_hash}</code>
      </p>
      <ScrollBox label={`Files of ${name} ${version}`}>
        <table>
          <caption className="visually-hidden">
            Files of {name} {version}
          </caption>
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col" className="num">
                Size
              </th>
              <th scope="col">Mode</th>
              <th scope="col">SHA-256</th>
            </tr>
          </thead>
          <tbody>
            {files.data.files.map((file) => (
              <tr key={file.path}>
                <th scope="row">
                  {TEXT_FILE.test(file.path) ? (
                    <button
                      type="button"
                      className="link"
                      aria-expanded={open === file.path}
                      onClick={() => setOpen(open === file.path ? undefined : file.path)}
                    >
                      {file.path}
                    </button>
                  ) : (
                    <code>{file.path}</code>
                  )}
                </th>
                <td className="num">{formatBytes(file.size)}</td>
                <td>
                  <code>{file.mode.toString(8)}</code>
                </td>
                <td>
                  <code className="digest" title={file.sha256}>
                    {file.sha256.slice(0, 16)}…
                  </code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
      {open && (
        <section aria-label={`Contents of ${open}`}>
          <h2>{open}</h2>
          <ProblemView error={text.error} />
          <pre className="code-view" tabIndex={0}>
            {text.data ?? 'Loading…'}
          </pre>
        </section>
      )}
    </div>
  );
}

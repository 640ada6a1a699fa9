/** A problem details answer (or a network failure) shown with its code, as the API sent it. */
export function ProblemView({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const problem = (typeof error === 'object' && error !== null ? error : { detail: String(error) }) as {
    status?: number;
    code?: string;
    title?: string;
    detail?: string;
    message?: string;
    errors?: { field?: string; message?: string; pointer?: string }[];
  };
  return (
    <div className="problem" role="alert">
      <strong>{title ?? problem.title ?? 'The registry refused this'}</strong>
      {problem.code && <code className="code">{problem.code}</code>}
      {problem.status && <span className="muted"> HTTP {problem.status}</span>}
      <p>{problem.detail ?? problem.message ?? 'No answer from the registry.'}</p>
      {problem.errors && problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((item, index) => (
            <li key={index}>
              <code>{item.field ?? item.pointer ?? ''}</code> {item.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

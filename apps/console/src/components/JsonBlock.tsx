/** JSON shown as text (never as HTML): whatever a handler or an author wrote stays inert. */
export function JsonBlock({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre className="json" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

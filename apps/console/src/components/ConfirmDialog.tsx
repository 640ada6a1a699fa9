import { type ReactNode, useEffect, useId, useRef } from 'react';

/**
 * A modal dialog (the native <dialog>: focus moves in and is trapped, Escape closes it) for an action that
 * needs a reason and a confirmation.
 */
export function ConfirmDialog({ open, title, onClose, children }: { open: boolean; title: string; onClose(): void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose} className="dialog">
      <h2 id={titleId}>{title}</h2>
      {open && children}
    </dialog>
  );
}

import type { ReactNode } from 'react';

/** A box that scrolls sideways in a narrow window (a wide table): focusable and named, so the keyboard can scroll it too. */
export function ScrollBox({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

/** Minimal structured logger of the adapters: one JSON line per event on stderr. */
export interface AdapterLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function jsonLogger(adapter: string, level: 'info' | 'warn' | 'error' | 'silent' = 'info'): AdapterLogger {
  const rank = { info: 0, warn: 1, error: 2, silent: 3 } as const;
  const write =
    (lineLevel: 'info' | 'warn' | 'error') =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (rank[lineLevel] < rank[level]) return;
      process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: lineLevel, adapter, msg: message, ...fields })}\n`);
    };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

/** See bundle-names.mjs. */
export function dropNeedlessNameCalls(code: string): { code: string; dropped: number };

// Types of index.mjs for TypeScript callers (the drill itself is plain ESM JavaScript).
export interface FuzzTokens {
  admin: string;
  agent: string;
}

export interface FuzzCase {
  transport: 'rest' | 'grpc' | 'mcp';
  route: string;
  [key: string]: unknown;
}

export interface FuzzResult {
  index: number;
  testCase: FuzzCase;
  verdict: 'ok' | '5xx' | 'hang' | 'contract' | 'reset' | 'crash' | 'expected' | 'unsendable';
  status: string;
  answer: string;
  ms: number;
}

export interface FuzzSummary {
  perTransport: Record<string, Record<string, number>>;
  failures: { signature: string; count: number; first: FuzzResult }[];
}

export interface FuzzOutcome {
  summary: FuzzSummary;
  stateChanges: string[];
  results: FuzzResult[];
  stopped: string | null;
  crashed: boolean;
  elapsedMs: number;
}

export function runDrill(
  registry: { baseUrl: string; grpcPort: number; databaseUrl: string },
  tokens: FuzzTokens,
  options: {
    seed: number;
    count: number;
    concurrency?: number;
    timeoutMs?: number;
    maxSeconds?: number;
    only?: string[];
    pick?: number[];
    isCrashed?: () => boolean;
    onProgress?: (done: number) => void;
    log?: (line: string) => void;
  },
): Promise<FuzzOutcome>;

/** Writes the drill's echo skill packages under `root` (a new temporary directory when absent); returns the root. */
export function writeEchoSkills(root?: string | null): Promise<string>;

export function formatReport(report: FuzzOutcome & { crashed: boolean; tokens: FuzzTokens; seed: number }): string;

export function reproduction(testCase: FuzzCase, tokens: FuzzTokens): string;

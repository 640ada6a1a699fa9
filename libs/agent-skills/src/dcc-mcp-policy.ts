import { describeValue } from '#skill-loader/describe.js';
import { toJsonPointer, type IssueList } from '#skill-loader/issues.js';
import { stringList } from './dcc-mcp.js';
import { isMapping } from './yaml-text.js';

const FILE = 'SKILL.md';
/** Seed 004: `SkillMetadata.dcc` defaults to "python". */
const DEFAULT_DCC = 'python';
const DCC_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Seed 004's host and invocation policy keys of `metadata.dcc-mcp`, read. */
export interface DccMcpPolicy {
  /** Target DCC (`dcc`), lower case; "python" when not declared. */
  dcc: string;
  /** Other DCC products the skill is for (`products`): the `dcc` search filter matches them too. */
  products: string[];
  /** `allow-implicit-invocation` (default true): whether its tools may be called without an explicit load step. */
  implicitInvocation: boolean;
  /** `external-deps` (a JSON string or a mapping: MCP servers, env vars, binaries), as declared; null when absent. */
  externalDeps: Record<string, unknown> | null;
}

/** Read `dcc`, `products`, `allow-implicit-invocation` and `external-deps`, each with its seed 004 meaning. */
export function readDccMcpPolicy(extension: Record<string, unknown>, issues: IssueList): DccMcpPolicy {
  const at = (key: string) => toJsonPointer(['metadata', 'dcc-mcp', key]);
  const products = stringList(extension.products, 'products', at('products'), issues).map((product) => product.toLowerCase());
  const policy: DccMcpPolicy = {
    dcc: readDcc(extension.dcc, at('dcc'), issues),
    products: [...new Set(products)],
    implicitInvocation: readFlag(extension['allow-implicit-invocation'], at('allow-implicit-invocation'), issues),
    externalDeps: readExternalDeps(extension['external-deps'], at('external-deps'), issues),
  };
  if (!policy.implicitInvocation) {
    issues.info(
      'definition',
      FILE,
      at('allow-implicit-invocation'),
      'allow-implicit-invocation: false is shown as implicit_invocation: false in search hits and the skill view; MCP tools/list does not hold its tools back for it (with progressive exposure every skill is loaded explicitly anyway)',
      'Nothing to change; hosts that honour the flag read it from the skill view.',
    );
  }
  if (policy.externalDeps !== null) {
    issues.info(
      'definition',
      FILE,
      at('external-deps'),
      'external-deps is stored and shown in the skill view as declared; the registry neither installs nor probes them',
      'Declare metadata.dcc-mcp.runtimes for binaries, environment variables or Python modules the registry should probe.',
    );
  }
  return policy;
}

function readDcc(value: unknown, path: string, issues: IssueList): string {
  if (value === undefined || value === null) return DEFAULT_DCC;
  if (typeof value === 'string' && DCC_NAME.test(value.trim())) return value.trim().toLowerCase();
  issues.error(
    'definition',
    FILE,
    path,
    `metadata.dcc-mcp.dcc must name one DCC application (letters, digits, . _ -); found ${describeValue(value)}`,
    'Write e.g. dcc: maya; list further applications under products.',
  );
  return DEFAULT_DCC;
}

/** A YAML boolean, or seed 004's flat string form "true" / "false". */
function readFlag(value: unknown, path: string, issues: IssueList): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  issues.error(
    'definition',
    FILE,
    path,
    `metadata.dcc-mcp.allow-implicit-invocation must be true or false; found ${describeValue(value)}`,
    'Write allow-implicit-invocation: false to require an explicit load step.',
  );
  return true;
}

/** Seed 004 keeps external-deps as a JSON string; a YAML mapping says the same and is accepted too. */
function readExternalDeps(value: unknown, path: string, issues: IssueList): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch (cause) {
      issues.error(
        'definition',
        FILE,
        path,
        `metadata.dcc-mcp.external-deps is not valid JSON: ${(cause as Error).message}`,
        'Write a JSON object, or the same as a YAML mapping.',
      );
      return null;
    }
  }
  if (isMapping(parsed)) return parsed;
  issues.error(
    'definition',
    FILE,
    path,
    `metadata.dcc-mcp.external-deps must be an object (MCP servers, env vars, binaries); found ${describeValue(parsed)}`,
    'Write e.g. external-deps: { binaries: [usdcat] }.',
  );
  return null;
}

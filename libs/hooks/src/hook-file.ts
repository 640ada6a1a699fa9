import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { parsePointer } from './redaction.js';

/**
 * The phases of a run as seeds 001 §4.1 and 003 §6 name them: `pre_flight` before anything is queued (in the
 * registry), `pre_step` before each attempt (after input validation), `post_step` after the handler returns
 * (before output validation), `pre_delivery` before the result is stored and announced, `post_delivery` after,
 * `on_tool` after each tool call, `on_error` when an attempt fails.
 */
const HOOK_PHASES = ['pre_flight', 'pre_step', 'post_step', 'pre_delivery', 'post_delivery', 'on_tool', 'on_error'] as const;
export type HookPhase = (typeof HOOK_PHASES)[number];

/** Phases after which nothing can change the outcome: a refusal or a fail-closed failure there stops nothing. */
export const OBSERVING_PHASES: ReadonlySet<HookPhase> = new Set(['post_delivery', 'on_error']);

const NAME = /^[a-z][a-z0-9_.-]{0,63}$/;
/** As FEATURE_FLAGS spells a flag (parseFeatureFlags in libs/mcp-bridge). */
const FLAG = /^[A-Za-z][A-Za-z0-9_.-]*$/;
/** A skill name, a name prefix ending in `*`, or `*` (as publisher scopes are written). */
const SKILL_PATTERN = /^(\*|[a-z][a-z0-9_-]*\*?)$/;

/** A JSON Pointer (RFC 6901) into the run's input or output: `/input/api_key`, `/output/raw/0`. */
const redactPointer = z
  .string()
  .regex(/^\/(input|output)\/.+/, 'must point inside /input/… or /output/…')
  .refine((text) => parsePointer(text) !== null, 'is not a JSON Pointer (RFC 6901)');

const metadataValue = z.union([z.string().max(1000), z.number(), z.boolean()]);

const webhookHeaderName = z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'is not a header name');

/** The built-in actions a hook in the file can take (there is no code in the file: code hooks are ExecutionHook providers). */
const hookAction = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('deny'), reason: z.string().min(1).max(500) }),
  z.strictObject({ type: z.literal('require_tag'), tag: z.string().min(1).max(64) }),
  z.strictObject({
    type: z.literal('rate_limit'),
    limit: z.number().int().min(1).max(1_000_000),
    window_seconds: z.number().int().min(1).max(86_400),
  }),
  z.strictObject({ type: z.literal('redact'), pointers: z.array(redactPointer).min(1).max(100) }),
  z.strictObject({
    type: z.literal('annotate'),
    metadata: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, 'is not a metadata key'), metadataValue),
  }),
  z.strictObject({
    type: z.literal('webhook'),
    url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
    timeout_ms: z.number().int().min(100).max(30_000).default(5000),
    retries: z.number().int().min(0).max(5).default(2),
    headers: z.record(webhookHeaderName, z.string().max(4096)).default({}),
  }),
]);

type HookAction = z.output<typeof hookAction>;
type HookActionType = HookAction['type'];

/**
 * Where each action may be declared. Refusals only where the run can still be stopped; `redact` where the result
 * is stored and announced (its pointers apply to everything stored or sent about the run, see redaction.ts).
 */
const ACTION_PHASES: Record<HookActionType, readonly HookPhase[]> = {
  deny: ['pre_flight', 'pre_step', 'post_step', 'pre_delivery'],
  require_tag: ['pre_flight', 'pre_step'],
  rate_limit: ['pre_flight', 'pre_step'],
  redact: ['pre_delivery'],
  annotate: HOOK_PHASES,
  webhook: HOOK_PHASES,
};

const hookScope = z.strictObject({
  skills: z.array(z.string().regex(SKILL_PATTERN, 'must be a skill name, a prefix ending in *, or *')).min(1).optional(),
  tags: z.array(z.string().min(1).max(64)).min(1).optional(),
  domains: z.array(z.string().min(1).max(64)).min(1).optional(),
});

export type HookScope = z.output<typeof hookScope>;

const hookDefinition = z.strictObject({
  name: z.string().regex(NAME, 'must start with a lowercase letter and use a-z, 0-9, _ . - (at most 64)'),
  phase: z.enum(HOOK_PHASES),
  /** Ascending: lower runs first (seed 001 §4.2); ties by name. */
  priority: z.number().int().min(-1_000_000).max(1_000_000).default(100),
  /** True: the hook's own failure stops the run (seed 001); false: it is reported and the run goes on (seed 003). */
  fail_closed: z.boolean().default(false),
  /** The hook is on only while FEATURE_FLAGS enables this flag. */
  requires_feature_flag: z.string().regex(FLAG, 'is not a flag name').optional(),
  /** Which skills it applies to; every skill when left out. */
  scope: hookScope.default({}),
  action: hookAction,
});

export type HookDefinition = z.output<typeof hookDefinition>;

const hooksFile = z.strictObject({ hooks: z.array(hookDefinition).max(500) }).superRefine((file, context) => {
  const seen = new Set<string>();
  file.hooks.forEach((hook, index) => {
    if (seen.has(hook.name))
      context.addIssue({ code: 'custom', path: ['hooks', index, 'name'], message: `'${hook.name}' is declared twice` });
    seen.add(hook.name);
    const allowed = ACTION_PHASES[hook.action.type];
    if (!allowed.includes(hook.phase)) {
      context.addIssue({
        code: 'custom',
        path: ['hooks', index, 'phase'],
        message: `a ${hook.action.type} hook runs in ${allowed.join(', ')}, not ${hook.phase}`,
      });
    }
  });
});

/** A hooks file that cannot be used; `problems` name each place (`hooks[2].action.url: …`). */
export class HooksFileInvalid extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source} is not a valid hooks file:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'HooksFileInvalid';
  }
}

/**
 * Parses a hooks file (YAML 1.2, so JSON too; duplicate keys are errors, at most 100 alias expansions) and
 * validates it: the hooks, or HooksFileInvalid naming every problem.
 */
export function parseHooksFile(text: string, source: string): HookDefinition[] {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const [syntax] = document.errors;
  if (syntax) throw new HooksFileInvalid(source, [syntax.message.split('\n')[0] as string]);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new HooksFileInvalid(source, [(error as Error).message]);
  }
  const parsed = hooksFile.safeParse(value ?? { hooks: [] });
  if (!parsed.success) {
    throw new HooksFileInvalid(
      source,
      parsed.error.issues.map((issue) => `${pathOf(issue.path)}: ${issue.message}`),
    );
  }
  return parsed.data.hooks;
}

/** Reads and parses the file at `path` (at start-up; reloads go through HooksFileSource). */
function loadHooksFile(path: string): HookDefinition[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HooksFileInvalid(path, [`cannot be read: ${(error as Error).message}`]);
  }
  return parseHooksFile(text, path);
}

function pathOf(path: PropertyKey[]): string {
  if (path.length === 0) return '(file)';
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`)).join('');
}

/**
 * `HOOKS_FILE` as the registry's and the executor's configuration read it: unset, or a path whose file is read
 * and validated at start (a bad file stops the process, naming each problem).
 */
export const hooksFileVariable = z
  .string()
  .optional()
  .transform((path, context): { path: string; hooks: HookDefinition[] } | null => {
    if (!path || path.trim() === '') return null;
    try {
      return { path, hooks: loadHooksFile(path) };
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

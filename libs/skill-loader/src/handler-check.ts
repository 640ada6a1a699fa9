import type { SkillHandlerClass } from '@skill-registry/sdk';
import { describeValue } from './describe.js';
import { IssueList } from './issues.js';
import type { RuntimeSdk } from './module-runtime.js';
import type { ResolvedSchema, SchemaRole } from './schema-check.js';

/** A class exported by handler.ts that extends SkillBase. */
export interface FoundHandler {
  exportName: string;
  handlerClass: SkillHandlerClass;
}

/** Classes of handler.ts extending SkillBase, and what else it exports (for messages). */
function findHandlerClasses(handlerExports: Record<string, unknown>, sdk: RuntimeSdk): { handlers: FoundHandler[]; others: string[] } {
  const handlers: FoundHandler[] = [];
  const others: string[] = [];
  const names = [...new Set([...Object.keys(handlerExports), ...('default' in handlerExports ? ['default'] : [])])];
  for (const exportName of names) {
    if (exportName === '__esModule') continue;
    const value = handlerExports[exportName];
    if (value === sdk.SkillBase) continue;
    if (sdk.isSkillHandlerClass(value)) {
      if (!handlers.some((found) => found.handlerClass === value)) handlers.push({ exportName, handlerClass: value });
    } else if (!handlers.some((found) => found.handlerClass === value)) {
      const described = describeValue(value);
      others.push(
        `${exportName} (${described}${typeof value === 'function' && described.startsWith('class') ? ', not extending SkillBase' : ''})`,
      );
    }
  }
  return { handlers, others };
}

/** Exactly one SkillBase subclass in handler.ts; records an issue and returns null otherwise. */
export function pickHandlerClass(handlerExports: Record<string, unknown>, sdk: RuntimeSdk, issues: IssueList): FoundHandler | null {
  const { handlers, others } = findHandlerClasses(handlerExports, sdk);
  if (handlers.length === 0) {
    issues.error(
      'handler',
      'handler.ts',
      '',
      others.length === 0
        ? 'handler.ts exports no class extending SkillBase: it exports nothing'
        : `handler.ts exports no class extending SkillBase; found instead: ${others.join(', ')}`,
      'Export one handler class: "export class MySkillHandler extends SkillBase<typeof MyInput, typeof MyOutput> { ... }" with SkillBase from \'@skill-registry/sdk\'.',
    );
    return null;
  }
  if (handlers.length > 1) {
    issues.error(
      'handler',
      'handler.ts',
      '',
      `handler.ts exports ${handlers.length} classes extending SkillBase (${handlers.map((found) => found.exportName).join(', ')}); exactly one is allowed`,
      'Keep one exported handler class; move shared logic into a non-exported base class or a helper module.',
    );
    return null;
  }
  const [found] = handlers;
  const prototype = (found.handlerClass as unknown as { prototype?: { execute?: unknown } }).prototype;
  if (typeof prototype?.execute !== 'function') {
    issues.error(
      'handler',
      'handler.ts',
      `${found.exportName}.execute`,
      `handler class ${found.handlerClass.name} does not implement execute()`,
      'Implement "async execute(input) { ... }" returning the output.',
    );
  }
  return found;
}

/** The handler's `static inputSchema`/`outputSchema` must be the very exports definition.json names. */
export function checkHandlerSchemas(
  found: FoundHandler,
  role: SchemaRole,
  expected: ResolvedSchema,
  schemaExports: Record<string, unknown>,
  issues: IssueList,
): void {
  const property = role === 'input' ? 'inputSchema' : 'outputSchema';
  const className = found.handlerClass.name || found.exportName;
  const actual = (found.handlerClass as unknown as Record<string, unknown>)[property];
  const setIt = `Set "static ${property} = ${expected.exportName};" in ${className}, importing ${expected.exportName} from './schema.js'.`;
  if (actual === undefined) {
    issues.error(
      'handler',
      'handler.ts',
      `${className}.${property}`,
      `handler ${role} type does not match definition: ${className} has no static ${property} (definition.json names '${expected.exportName}')`,
      setIt,
    );
    return;
  }
  if (actual === expected.schema) return;
  const actualName = Object.keys(schemaExports).find((name) => name !== 'default' && schemaExports[name] === actual);
  const what = actualName ? `schema.ts export '${actualName}'` : 'a schema that is not the schema.ts export (a copy or an inline schema)';
  issues.error(
    'handler',
    'handler.ts',
    `${className}.${property}`,
    `handler ${role} type does not match definition: ${className}.${property} is ${what}, but definition.json ${role}_schema names '${expected.exportName}'`,
    setIt,
  );
}

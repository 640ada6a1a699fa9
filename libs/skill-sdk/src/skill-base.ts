import type { z } from 'zod';
import type { SkillContext, SkillLogger } from './context.js';

/**
 * Brand that marks SkillBase subclasses. Loaders check the brand rather than `instanceof`, so a
 * handler compiled against another copy of this package is still recognised.
 */
export const SKILL_HANDLER_BRAND = Symbol.for('skill-registry.skill-handler');

/** Any zod schema usable as a skill input or output. */
export type SkillSchema = z.ZodType;

/**
 * Base class of every skill handler. Subclasses set `static inputSchema` and `static outputSchema`
 * to the schema.ts exports named in definition.json, and implement `execute`.
 */
export abstract class SkillBase<In extends SkillSchema, Out extends SkillSchema> {
  static readonly [SKILL_HANDLER_BRAND] = true;

  /** Logger bound to the execution, with the handler's class name added. */
  protected readonly logger: SkillLogger;

  constructor(protected readonly context: SkillContext) {
    this.logger = context.logger.child({ skill: new.target.name });
  }

  /** Run the skill on validated input; the result is validated against the output schema afterwards. */
  abstract execute(input: z.output<In>): Promise<z.input<Out>>;

  /** Check preconditions before `execute`; return one message per failed check (empty = all met). */
  validatePreconditions(input: z.output<In>): Promise<string[]>;
  async validatePreconditions(): Promise<string[]> {
    return [];
  }
}

/** The static side of a skill handler class, as loaders and executors see it. */
export interface SkillHandlerClass {
  new (context: SkillContext): SkillBase<SkillSchema, SkillSchema>;
  readonly name: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
}

/** True when `value` is a class that extends SkillBase (through any copy of this package). */
export function isSkillHandlerClass(value: unknown): value is SkillHandlerClass {
  return typeof value === 'function' && (value as unknown as Record<symbol, unknown>)[SKILL_HANDLER_BRAND] === true;
}

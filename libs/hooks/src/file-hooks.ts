import type { HookDefinition } from './hook-file.js';
import type { HookContext, HookEvent, HookResult, RunnableHook } from './hook-run.js';
import type { RateCounter } from './rate-counter.js';
import { redact } from './redaction.js';
import type { WebhookSender } from './webhook.js';

/** What the built-in actions need from outside: a counter shared by the replicas, and an HTTP client. */
export interface HookPorts {
  rateCounter: RateCounter;
  webhooks: WebhookSender;
}

/** The CloudEvents type of a hook's webhook: `dev.skill-registry.hook.<phase>`. */
function webhookEventType(phase: string): string {
  return `dev.skill-registry.hook.${phase}`;
}

/** A hook of the file as a runnable hook: its action, under the same rules as a code hook. */
export function fileHook(definition: HookDefinition, ports: HookPorts): RunnableHook {
  return {
    name: definition.name,
    phase: definition.phase,
    priority: definition.priority,
    failClosed: definition.fail_closed,
    source: 'file',
    run: (event, context) => runAction(definition, event, context, ports),
  };
}

async function runAction(definition: HookDefinition, event: HookEvent, context: HookContext, ports: HookPorts): Promise<HookResult> {
  const action = definition.action;
  switch (action.type) {
    case 'deny':
      return { refuse: { reason: action.reason, action: 'deny' } };
    case 'require_tag':
      return event.skill.tags.includes(action.tag)
        ? {}
        : { refuse: { reason: `skill '${event.skill.name}' is not tagged '${action.tag}'`, action: 'require_tag' } };
    case 'rate_limit': {
      // Per caller per skill (seed-less, the rule): a caller's runs of one skill share one count on every replica.
      const key = [definition.name, event.skill.name, encodeURIComponent(event.execution.caller)].join(':');
      const { count, resetSeconds } = await ports.rateCounter.hit(key, action.window_seconds);
      if (count <= action.limit) return { metrics: { allowed: 1 } };
      return {
        refuse: {
          reason: `${event.execution.caller} may run '${event.skill.name}' ${action.limit} time(s) per ${action.window_seconds} s; try again in ${resetSeconds} s`,
          action: 'rate_limit',
          retryAfterSeconds: resetSeconds,
        },
        metrics: { refused: 1 },
      };
    }
    case 'redact':
      return { redactions: action.pointers };
    case 'annotate':
      return { metadata: action.metadata };
    case 'webhook': {
      const delivery = await ports.webhooks.send(
        { url: action.url, timeoutMs: action.timeout_ms, retries: action.retries, headers: action.headers },
        {
          type: webhookEventType(event.phase),
          source: `/skill-registry/hooks/${definition.name}`,
          subject: event.skill.name,
          executionId: event.execution.id,
          data: webhookData(definition.name, event, context),
        },
      );
      return { metrics: { deliveries: 1, delivery_tries: delivery.tries } };
    }
  }
}

/** The `data` of a hook's CloudEvent: the phase, the skill, the run (redacted as the context says so far), the tool call. */
function webhookData(hook: string, event: HookEvent, context: HookContext): Record<string, unknown> {
  const { execution } = event;
  const documents = redact({ input: execution.input, output: execution.output ?? null }, context.redactions);
  return {
    hook,
    phase: event.phase,
    skill: { name: event.skill.name, version: event.skill.version, domain: event.skill.domain, tags: [...event.skill.tags] },
    execution: {
      id: execution.id,
      caller: execution.caller,
      session_id: execution.sessionId,
      attempt: execution.attempt,
      ...(execution.status ? { status: execution.status } : {}),
      input: documents.input,
      ...(execution.output !== undefined ? { output: documents.output } : {}),
      ...(execution.error ? { error: execution.error } : {}),
    },
    ...(event.tool
      ? {
          tool: {
            id: event.tool.id,
            ok: event.tool.ok,
            duration_ms: event.tool.durationMs,
            ...(event.tool.disabled ? { disabled: true } : {}),
            ...(event.tool.error ? { error: event.tool.error } : {}),
          },
        }
      : {}),
    metadata: { ...context.metadata },
  };
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '#database/paths.js';
import type { ExecutionView } from './execution.views.js';

/**
 * Examples of the document, taken from the declared examples of catalog skills (skills/<domain>/<name>/
 * definition.json), so they are inputs and outputs the skills really accept and give (promotion runs
 * them). Without the catalog on disk the document simply has no examples.
 */
const EXAMPLE_SKILLS = ['simulation/compare_results', 'firmware/validate_pinmap'];

interface CatalogExample {
  name: string;
  version: string;
  description: string;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
}

function readExamples(): CatalogExample[] {
  const found: CatalogExample[] = [];
  for (const relative of EXAMPLE_SKILLS) {
    try {
      const definition = JSON.parse(readFileSync(path.join(projectRoot(), 'skills', relative, 'definition.json'), 'utf8')) as {
        name: string;
        version: string;
        examples?: { description?: string; input: Record<string, unknown>; output?: Record<string, unknown> }[];
      };
      const example = definition.examples?.find((candidate) => candidate.output !== undefined);
      if (example?.output) {
        found.push({
          name: definition.name,
          version: definition.version,
          description: example.description ?? `${definition.name} example`,
          input: example.input,
          output: example.output,
        });
      }
    } catch {
      // No catalog here (an installation without skills/): no example.
    }
  }
  return found;
}

const EXAMPLES = readExamples();
const EXECUTION_ID = '0b9e3c52-5a43-4a8e-9d0c-1f3b7c2a9e11';
const CREATED_AT = '2026-12-01T09:30:00.000Z';

function execution(example: CatalogExample, finished: boolean): ExecutionView {
  return {
    id: EXECUTION_ID,
    skill: example.name,
    version: example.version,
    tool: null,
    branch: 'main',
    trace_id: null,
    status: finished ? 'SUCCEEDED' : 'QUEUED',
    input: example.input,
    output: finished ? example.output : null,
    error: null,
    attempts: finished ? 1 : 0,
    max_attempts: 1,
    warnings: [],
    session_id: null,
    caller: 'anonymous',
    purpose: 'call',
    cancel_requested_at: null,
    created_at: CREATED_AT,
    started_at: finished ? '2026-12-01T09:30:00.021Z' : null,
    finished_at: finished ? '2026-12-01T09:30:00.034Z' : null,
    duration_ms: finished ? 13 : null,
  };
}

const named = <T>(make: (example: CatalogExample) => T) =>
  EXAMPLES.length === 0
    ? undefined
    : Object.fromEntries(EXAMPLES.map((example) => [example.name, { summary: example.description, value: make(example) }]));

/** `POST /v1/skills/{name}/executions` bodies: a catalog example's input. */
export const executeRequestExamples = named((example) => ({ input: example.input }));
/** The finished execution of that input (200 with ?wait=). */
export const finishedExecutionExamples = named((example) => execution(example, true));
/** The same execution as accepted (202). */
export const queuedExecutionExamples = named((example) => execution(example, false));

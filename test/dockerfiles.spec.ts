import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NODE_ARGS } from '../scripts/node-args.mjs';
import { serviceBundle, type Service } from '../scripts/service-entries.mjs';
import { REPO_ROOT } from './support/skill-packages.js';

/** The JSON-array CMD of a Dockerfile. */
function commandOf(dockerfile: string): string[] {
  const line = readFileSync(path.join(REPO_ROOT, dockerfile), 'utf8')
    .split('\n')
    .find((text) => text.startsWith('CMD '));
  if (!line) throw new Error(`${dockerfile} has no CMD`);
  return JSON.parse(line.slice('CMD '.length)) as string[];
}

describe('Dockerfiles', () => {
  it.each(Object.entries(NODE_ARGS))('start the %s with the V8 options npm start uses (scripts/node-args.mjs)', (service, args) => {
    expect(commandOf(`apps/${service}/Dockerfile`)).toEqual(['node', ...args, serviceBundle(service as Service)]);
  });

  it.each(['spice', 'calculix', 'gmsh', 'kicad'] as const)('start the %s adapter from its bundle, as npm start does', (service) => {
    expect(commandOf(`apps/adapters/${service}/Dockerfile`)).toEqual(['node', serviceBundle(service)]);
  });
});

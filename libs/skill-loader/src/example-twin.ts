import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { isSkippedEntry } from '#package-store/package-files.js';
import type { SkillExample } from './definition.js';
import { IssueList } from './issues.js';

/** A constraint of a fixture work product, e.g. `{ "kind": "max_von_mises_stress", "max_von_mises_mpa": 235, ... }`. */
interface ExampleTwinConstraint {
  kind: string;
  [field: string]: unknown;
}

/** A work product that must exist on the branch an example runs on; its content inline or in a package file. */
interface ExampleTwinWorkProduct {
  id: string;
  kind: string;
  name: string;
  media_type: string;
  /** The content as text (UTF-8); exactly one of content and content_file. */
  content?: string;
  /** Package-relative path of a file holding the content (e.g. `examples/mesh.inp`). */
  content_file?: string;
  metadata?: Record<string, unknown>;
  constraints?: ExampleTwinConstraint[];
}

/** `twin` of a declared example: the digital twin state the example needs. */
export interface ExampleTwinFixture {
  work_products: ExampleTwinWorkProduct[];
}

/** A fixture work product with its bytes, ready to be put into a twin (a fake one, or the platform's). */
export interface ResolvedTwinWorkProduct {
  id: string;
  kind: string;
  name: string;
  mediaType: string;
  content: Uint8Array;
  metadata: Record<string, unknown>;
  constraints: ExampleTwinConstraint[];
}

/** A package's files: its directory, or its files by package-relative path (as the package store holds them). */
export type PackageFileSource = string | ReadonlyMap<string, Uint8Array>;

const nonBlank = (value: string) => value.trim() !== '';

export const twinWorkProductSchema = z.strictObject({
  id: z.uuid(),
  kind: z.string().regex(/^[a-z][a-z0-9_]*$/),
  name: z.string().refine(nonBlank),
  media_type: z.string().regex(/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i),
  content: z.string().optional(),
  content_file: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  constraints: z.array(z.looseObject({ kind: z.string().refine(nonBlank) })).optional(),
});

export const twinFixtureSchema = z.strictObject({
  work_products: z.array(twinWorkProductSchema).min(1).max(50),
});

/**
 * Why `path` cannot name a package file, or null. Package files are kept under normalised POSIX paths, and
 * dotfiles, node_modules and dist are never part of a package, so a fixture could not be found there.
 */
export function contentFilePathProblem(path: string): string | null {
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'is absolute';
  if (path.includes('\\')) return 'uses backslashes';
  const segments = path.split('/');
  if (segments.includes('..')) return 'leaves the package (..)';
  if (segments.some((segment) => segment === '' || segment === '.')) return 'is not a normalised path';
  const skipped = segments.find((segment) => isSkippedEntry(segment));
  if (skipped !== undefined) return `names '${skipped}', which packages leave out (dotfiles, node_modules, dist)`;
  return null;
}

/** Rules of the `twin` fixtures that need more than one field: one content source each, safe paths, distinct ids. */
export function checkTwinFixtureRules(examples: readonly SkillExample[], issues: IssueList): void {
  examples.forEach((example, exampleIndex) => {
    const workProducts = example.twin?.work_products ?? [];
    workProducts.forEach((workProduct, index) => {
      const pointer = `/examples/${exampleIndex}/twin/work_products/${index}`;
      const label = `examples[${exampleIndex}].twin.work_products[${index}]`;
      const sources = [workProduct.content, workProduct.content_file].filter((source) => source !== undefined).length;
      if (sources !== 1) {
        issues.error(
          'examples',
          'definition.json',
          pointer,
          `${label} must give exactly one of content and content_file; found ${sources === 0 ? 'neither' : 'both'}`,
          'Give the content inline as "content" (text) or as "content_file": a path inside the package (e.g. "examples/mesh.inp").',
        );
      }
      const problem = workProduct.content_file === undefined ? null : contentFilePathProblem(workProduct.content_file);
      if (problem !== null) {
        issues.error(
          'examples',
          'definition.json',
          `${pointer}/content_file`,
          `${label}.content_file '${workProduct.content_file}' ${problem}`,
          'Use a path relative to the package directory, with / separators and without "..", e.g. "examples/mesh.inp".',
        );
      }
      if (workProducts.findIndex((other) => other.id === workProduct.id) !== index) {
        issues.error(
          'examples',
          'definition.json',
          `${pointer}/id`,
          `${label}.id ${workProduct.id} is listed more than once in this example`,
          'Give each work product of an example once; one work product has one content per branch.',
        );
      }
    });
  });
}

/** Every fixture content_file must be a file of the package in `packagePath`. */
export function checkTwinFixtureFiles(examples: readonly SkillExample[], packagePath: string, issues: IssueList): void {
  examples.forEach((example, exampleIndex) => {
    example.twin?.work_products.forEach((workProduct, index) => {
      const file = workProduct.content_file;
      if (file === undefined || contentFilePathProblem(file) !== null) return;
      const info = statSync(join(packagePath, file), { throwIfNoEntry: false });
      if (info?.isFile()) return;
      issues.error(
        'examples',
        'definition.json',
        `/examples/${exampleIndex}/twin/work_products/${index}/content_file`,
        `examples[${exampleIndex}].twin.work_products[${index}].content_file '${file}' ${info ? 'is not a regular file' : 'does not exist in the package'}`,
        `Add the file ${file} to the package, or fix the path (it is relative to the package directory).`,
      );
    });
  });
}

/** The work products an example needs on its branch, with their bytes read from the package's files. */
export async function resolveExampleTwin(example: SkillExample, files: PackageFileSource): Promise<ResolvedTwinWorkProduct[]> {
  const resolved: ResolvedTwinWorkProduct[] = [];
  for (const workProduct of example.twin?.work_products ?? []) {
    resolved.push({
      id: workProduct.id,
      kind: workProduct.kind,
      name: workProduct.name,
      mediaType: workProduct.media_type,
      content: await contentOf(workProduct, files),
      metadata: workProduct.metadata ?? {},
      constraints: workProduct.constraints ?? [],
    });
  }
  return resolved;
}

async function contentOf(workProduct: ExampleTwinWorkProduct, files: PackageFileSource): Promise<Uint8Array> {
  if (workProduct.content_file === undefined) return new TextEncoder().encode(workProduct.content ?? '');
  const file = workProduct.content_file;
  const problem = contentFilePathProblem(file);
  if (problem !== null) throw new Error(`content_file '${file}' of fixture work product ${workProduct.id} ${problem}`);
  const bytes = typeof files === 'string' ? await readFile(join(files, file)).catch(() => undefined) : (files.get(file) ?? undefined);
  if (bytes === undefined) throw new Error(`content_file '${file}' of fixture work product ${workProduct.id} is not in the package`);
  return new Uint8Array(bytes);
}

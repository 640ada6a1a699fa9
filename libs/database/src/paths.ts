import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, found from this file whether it runs from source or from dist/. */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'prisma', 'schema.prisma'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('Cannot find the project root (prisma/schema.prisma) above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export function migrationsDir(): string {
  return path.join(projectRoot(), 'prisma', 'migrations');
}

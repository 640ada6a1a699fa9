import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';

/** The wire views of the package store's routes (package-files.controller.ts returns exactly these). */

export const packageFilesView = apiComponent(
  'PackageFiles',
  z.object({
    name: z.string(),
    version: z.string(),
    content_hash: z.string().describe("The package's manifest hash, the version's content_hash"),
    files: z.array(
      z.object({
        path: z.string(),
        size: z.number().int(),
        mode: z.number().int().describe('644 or 755'),
        sha256: z.string(),
      }),
    ),
  }),
  "Every file of a version's stored package",
);

export type PackageFilesView = z.input<typeof packageFilesView>;

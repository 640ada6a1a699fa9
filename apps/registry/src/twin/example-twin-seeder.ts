import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { PackageStore } from '#package-store/index.js';
import { resolveExampleTwin } from '#skill-loader/index.js';
import { TwinStore } from '#twin/index.js';
import type { SkillVersionRecord } from '../catalog/skill-records.js';
import { PackageNotStored } from '../problem/domain-errors.js';

const PROMOTION = { identity: 'system:promotion' };

/**
 * The twin state a declared example needs: a fresh, empty promotion branch holding the example's
 * fixture work products (content from the version's stored package) and their constraints. So an
 * example is reproducible and never reads or writes a branch callers work on.
 */
@Injectable()
export class ExampleTwinSeeder {
  constructor(
    private readonly twin: TwinStore,
    private readonly packages: PackageStore,
  ) {}

  /**
   * A new, empty promotion branch for the example, holding its twin fixtures when it declares any: an
   * example that writes (export_mesh writes its mesh) must not write to a branch callers work on either.
   */
  async branchFor(version: SkillVersionRecord, example: SkillVersionRecord['examples'][number]): Promise<string> {
    const branch = `promotion-${randomBytes(8).toString('hex')}`;
    await this.twin.createBranch({ name: branch, from: null, purpose: 'promotion' }, PROMOTION);
    if (!example.twin?.work_products.length) return branch;
    const stored = await this.packages.read(version.contentHash);
    if (!stored) throw new PackageNotStored(version.name, version.version);
    const files = new Map(stored.files.map((file) => [file.path, file.bytes]));
    const workProducts = await resolveExampleTwin(example, files);
    for (const workProduct of workProducts) {
      await this.twin.put(
        {
          branch,
          id: workProduct.id,
          kind: workProduct.kind,
          name: workProduct.name,
          bytes: Buffer.from(workProduct.content),
          mediaType: workProduct.mediaType,
          metadata: workProduct.metadata,
        },
        PROMOTION,
        { createWithId: true },
      );
      if (workProduct.constraints.length > 0) await this.twin.setConstraints(workProduct.id, branch, workProduct.constraints, PROMOTION);
    }
    return branch;
  }
}

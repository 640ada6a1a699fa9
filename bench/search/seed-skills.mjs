// Stores generated skills through the registry's own repository (the write path discovery uses
// after loading a package), so the REST part can search 10,000 skills without compiling 10,000
// packages first. Their package paths lie under a SKILL_PATHS root that does not exist, which
// discovery leaves alone by design (a missing root is a misconfiguration, not a removal).
import path from 'node:path';
import { REPO_ROOT } from '../support/registry-process.mjs';

const dist = (relative) => path.join(REPO_ROOT, 'dist', relative);

export async function seedSkills(databaseUrl, documents, seededRoot) {
  const { createPgPool, createPrismaClient } = await import(dist('libs/database/src/index.js'));
  const { SkillsRepository } = await import(dist('apps/registry/src/catalog/skills.repository.js'));
  const prisma = createPrismaClient(databaseUrl, 16);
  const pool = createPgPool(databaseUrl, 4);
  // Only loadAll, createVersion and updateVersion are used: none of them listens.
  const repository = new SkillsRepository(prisma, pool, null);
  try {
    // A version discovery stored from a real package gives the schemas and validation shape.
    const template = (await repository.loadAll()).flatMap((skill) => skill.versions).find((version) => version.status === 'REGISTERED');
    if (!template) throw new Error('seedSkills needs at least one discovered REGISTERED package as a template');
    const queue = [...documents];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let document = queue.shift(); document; document = queue.shift()) await seedOne(repository, template, document, seededRoot);
      }),
    );
  } finally {
    await prisma.$disconnect();
    await pool.end();
  }
}

async function seedOne(repository, template, document, seededRoot) {
  const stored = document.status === 'DEPRECATED' ? 'ACTIVE' : document.status;
  // The template's row with this document's fields: every column the repository writes stays filled as the schema grows.
  const created = await repository.createVersion(
    {
      ...template,
      name: document.name,
      version: '1.0.0',
      versionKey: [1, 0, 0, ''],
      domain: document.domain,
      agent: document.agent,
      description: document.description,
      phase: document.phase,
      toolsRequired: document.toolIds.map((toolId) => ({ tool_id: toolId, capability: 'analysis', required: true })),
      timeoutSeconds: 30,
      retries: 0,
      idempotent: true,
      tags: document.tags,
      readOnly: false,
      dependsOn: [],
      packagePath: path.join(seededRoot, document.domain, document.name),
      contentHash: `sha256:${'0'.repeat(64)}`,
      validation:
        stored === 'DRAFT'
          ? [{ severity: 'error', category: 'definition', file: 'definition.json', path: '', message: 'seeded draft', hint: '' }]
          : [],
      status: stored,
      statusReason: 'seeded by bench/search',
    },
    { from: null, to: stored, actor: 'bench:search', reason: 'seeded by bench/search' },
  );
  if (created && document.status === 'DEPRECATED') {
    await repository.updateVersion(
      created,
      'DEPRECATED',
      { deprecationReason: 'superseded (bench)', deprecatedAt: new Date(), deprecationSuccessor: null, deprecationSunset: null },
      { from: 'ACTIVE', to: 'DEPRECATED', actor: 'bench:search', reason: 'superseded (bench)' },
    );
  }
}

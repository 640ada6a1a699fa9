-- Dependencies between skills (name + semver range) and each version's compatibility policy.
ALTER TABLE "skill_versions" ADD COLUMN "depends_on" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "skill_versions" ADD COLUMN "compatibility" TEXT NOT NULL DEFAULT 'backward';

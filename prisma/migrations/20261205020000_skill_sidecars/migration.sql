-- Seed 004's package, all of it: what an Agent Skills package's sidecars give its version once read
-- (prompt templates, static resources, workflows of its tools, runtimes with the state the registration
-- probe found and when it ran), and every version's trust scope (seed 004 SkillScope: where it came from).
ALTER TABLE "skill_versions" ADD COLUMN "prompts" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "skill_versions" ADD COLUMN "resources" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "skill_versions" ADD COLUMN "workflows" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "skill_versions" ADD COLUMN "runtimes" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "skill_versions" ADD COLUMN "runtimes_probed_at" TIMESTAMPTZ(3);
ALTER TABLE "skill_versions" ADD COLUMN "scope" TEXT NOT NULL DEFAULT 'system';
ALTER TABLE "skill_versions" ADD CONSTRAINT "skill_versions_scope_known" CHECK ("scope" IN ('admin', 'system', 'user', 'repo'));

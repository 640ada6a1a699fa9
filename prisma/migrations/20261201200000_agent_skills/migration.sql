-- Agent Skills packages (SKILL.md + tools.yaml): a version's format, its tools, and its Agent Skills
-- frontmatter; an execution names the tool it runs (null for a TypeScript skill's one handler).
ALTER TABLE "skill_versions" ADD COLUMN "format" TEXT NOT NULL DEFAULT 'typescript';
ALTER TABLE "skill_versions" ADD COLUMN "tools" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "skill_versions" ADD COLUMN "agent_skill" JSONB;
ALTER TABLE "executions" ADD COLUMN "tool" TEXT;

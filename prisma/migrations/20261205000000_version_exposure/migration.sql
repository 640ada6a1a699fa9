-- Issue 26 §1: how a version is offered as MCP tools beyond its schemas. A TypeScript skill's annotations and task
-- support from definition.json (title, destructive, open_world, task_support), an Agent Skills package's tool groups
-- (seed 004 "Tool Groups"). One JSON object (libs/contracts VersionExposure); versions stored before it read as {}.
ALTER TABLE "skill_versions" ADD COLUMN "exposure" JSONB NOT NULL DEFAULT '{}';

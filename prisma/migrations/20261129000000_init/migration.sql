-- CreateEnum
CREATE TYPE "SkillStatus" AS ENUM ('DRAFT', 'REGISTERED', 'ACTIVE', 'DEPRECATED', 'ARCHIVED');

-- CreateTable
CREATE TABLE "skills" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "skills_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "skill_versions" (
    "id" UUID NOT NULL,
    "skill_id" UUID NOT NULL,
    "version" TEXT NOT NULL,
    "version_major" INTEGER NOT NULL,
    "version_minor" INTEGER NOT NULL,
    "version_patch" INTEGER NOT NULL,
    "version_prerelease" TEXT NOT NULL DEFAULT '',
    "domain" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "phase" INTEGER NOT NULL,
    "tools_required" JSONB NOT NULL,
    "input_schema_ref" TEXT NOT NULL,
    "output_schema_ref" TEXT NOT NULL,
    "input_schema" JSONB,
    "output_schema" JSONB,
    "timeout_seconds" INTEGER NOT NULL,
    "retries" INTEGER NOT NULL,
    "idempotent" BOOLEAN NOT NULL,
    "tags" TEXT[],
    "examples" JSONB NOT NULL,
    "read_only" BOOLEAN NOT NULL DEFAULT false,
    "package_path" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "validation" JSONB NOT NULL,
    "status" "SkillStatus" NOT NULL,
    "status_reason" TEXT,
    "status_changed_at" TIMESTAMPTZ(3) NOT NULL,
    "deprecation_reason" TEXT,
    "deprecation_successor" TEXT,
    "deprecation_sunset" TIMESTAMPTZ(3),
    "deprecated_at" TIMESTAMPTZ(3),
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "skill_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "lifecycle_events" (
    "id" BIGSERIAL NOT NULL,
    "skill_version_id" UUID NOT NULL,
    "from_status" "SkillStatus",
    "to_status" "SkillStatus" NOT NULL,
    "actor" TEXT NOT NULL,
    "reason" TEXT,
    "forced" BOOLEAN NOT NULL DEFAULT false,
    "evidence" JSONB NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "lifecycle_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "skills_name_key" ON "skills"("name");

-- CreateIndex
CREATE INDEX "skill_versions_status_idx" ON "skill_versions"("status");

-- CreateIndex
CREATE UNIQUE INDEX "skill_versions_skill_id_version_key" ON "skill_versions"("skill_id", "version");

-- CreateIndex
CREATE INDEX "lifecycle_events_skill_version_id_id_idx" ON "lifecycle_events"("skill_version_id", "id");

-- AddForeignKey
ALTER TABLE "skill_versions" ADD CONSTRAINT "skill_versions_skill_id_fkey" FOREIGN KEY ("skill_id") REFERENCES "skills"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "lifecycle_events" ADD CONSTRAINT "lifecycle_events_skill_version_id_fkey" FOREIGN KEY ("skill_version_id") REFERENCES "skill_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Lifecycle events are append-only: refuse UPDATE and DELETE at the database level.
CREATE FUNCTION "lifecycle_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'lifecycle_events is append-only (% refused)', TG_OP;
END;
$$;

CREATE TRIGGER "lifecycle_events_no_update_delete"
  BEFORE UPDATE OR DELETE ON "lifecycle_events"
  FOR EACH ROW EXECUTE FUNCTION "lifecycle_events_append_only"();

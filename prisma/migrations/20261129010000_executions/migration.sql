-- CreateEnum
CREATE TYPE "ExecutionStatus" AS ENUM ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED');

-- CreateTable
CREATE TABLE "executions" (
    "id" UUID NOT NULL,
    "skill_version_id" UUID NOT NULL,
    "skill_name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "purpose" TEXT NOT NULL DEFAULT 'call',
    "status" "ExecutionStatus" NOT NULL,
    "input" JSONB NOT NULL,
    "output" JSONB,
    "error" JSONB,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "max_attempts" INTEGER NOT NULL,
    "attempt_running" BOOLEAN NOT NULL DEFAULT false,
    "warnings" JSONB NOT NULL DEFAULT '[]',
    "session_id" TEXT,
    "caller" TEXT NOT NULL,
    "idempotency_key" TEXT,
    "request_hash" TEXT,
    "cancel_requested_at" TIMESTAMPTZ(3),
    "heartbeat_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "duration_ms" INTEGER,

    CONSTRAINT "executions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "executions_skill_name_created_at_idx" ON "executions"("skill_name", "created_at");

-- CreateIndex
CREATE INDEX "executions_status_heartbeat_at_idx" ON "executions"("status", "heartbeat_at");

-- CreateIndex
CREATE INDEX "executions_session_id_idx" ON "executions"("session_id");

-- CreateIndex
CREATE UNIQUE INDEX "executions_caller_idempotency_key_key" ON "executions"("caller", "idempotency_key");

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_skill_version_id_fkey" FOREIGN KEY ("skill_version_id") REFERENCES "skill_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Issue 26 §2: an MCP task is an execution (task id = execution id). The task's own facts: who created it (the token
-- identity; another identity gets not-found), its time to live and poll interval, and when it was cancelled through
-- tasks/cancel (a cancelled task stays cancelled, whatever its execution does after). Removed with its execution.
CREATE TABLE "mcp_tasks" (
    "task_id" UUID NOT NULL,
    "owner" TEXT NOT NULL,
    "ttl_ms" INTEGER,
    "poll_interval_ms" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),

    CONSTRAINT "mcp_tasks_pkey" PRIMARY KEY ("task_id"),
    CONSTRAINT "mcp_tasks_task_id_fkey" FOREIGN KEY ("task_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- tasks/list pages one owner's tasks newest first; the sweep finds expired ones.
CREATE INDEX "mcp_tasks_owner_created_at_idx" ON "mcp_tasks"("owner", "created_at" DESC, "task_id" DESC);
CREATE INDEX "mcp_tasks_expires_at_idx" ON "mcp_tasks"("expires_at");

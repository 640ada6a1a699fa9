-- The W3C trace context an execution was asked for under: its trace id (shown in its views, to join logs
-- and records) and the traceparent its attempts continue, whether trace export is on or off.
ALTER TABLE "executions" ADD COLUMN "trace_id" TEXT;
ALTER TABLE "executions" ADD COLUMN "trace_parent" TEXT;

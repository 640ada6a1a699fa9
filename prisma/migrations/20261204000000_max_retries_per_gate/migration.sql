-- Seed 001 §2.3, gates that re-ask: how many times a result that fails output validation is asked for again
-- within one attempt (0 to 3; the executor asks again only for idempotent skills, never past the timeout).
ALTER TABLE "skill_versions" ADD COLUMN "max_retries_per_gate" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "skill_versions" ADD CONSTRAINT "skill_versions_max_retries_per_gate_range" CHECK ("max_retries_per_gate" BETWEEN 0 AND 3);

-- Which constraints revision an execution read: what its results were judged against (provenance),
-- beside the content revisions of twin_reads.
CREATE TABLE "twin_constraint_reads" (
  "execution_id" UUID NOT NULL,
  "work_product_id" UUID NOT NULL,
  "revision" INTEGER NOT NULL,
  "at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("execution_id", "work_product_id", "revision"),
  FOREIGN KEY ("work_product_id", "revision") REFERENCES "work_product_constraints" ("work_product_id", "revision")
);
CREATE INDEX "twin_constraint_reads_revision_idx" ON "twin_constraint_reads" ("work_product_id", "revision");

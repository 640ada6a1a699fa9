-- The digital twin: work products with immutable revisions on branches, their constraints, and the
-- provenance of every read and write by an execution. Content lives in package_blobs, by sha256.

-- A branch sees its own revisions and its parent's up to forked_at (recursively); main has no parent.
CREATE TABLE "twin_branches" (
  "name" TEXT PRIMARY KEY,
  "parent" TEXT REFERENCES "twin_branches" ("name"),
  "forked_at" TIMESTAMPTZ(3),
  -- 'work' (made by a caller) or 'promotion' (a throwaway branch an example of a promotion runs on)
  "purpose" TEXT NOT NULL DEFAULT 'work',
  "bytes_written" BIGINT NOT NULL DEFAULT 0,
  "created_by" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
INSERT INTO "twin_branches" ("name", "created_by") VALUES ('main', 'system');

CREATE TABLE "work_products" (
  "id" UUID PRIMARY KEY,
  "kind" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  -- Counters behind revision numbers; the row lock taken to bump them serialises writes to one work product.
  "last_revision" INTEGER NOT NULL DEFAULT 0,
  "last_constraints_revision" INTEGER NOT NULL DEFAULT 0,
  "created_by" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- One revision: content (by hash) or, when archived, a marker that hides the work product on its branch.
CREATE TABLE "work_product_revisions" (
  "work_product_id" UUID NOT NULL REFERENCES "work_products" ("id"),
  "revision" INTEGER NOT NULL,
  "branch" TEXT NOT NULL REFERENCES "twin_branches" ("name"),
  "archived" BOOLEAN NOT NULL DEFAULT false,
  "sha256" TEXT,
  "media_type" TEXT,
  "size" BIGINT NOT NULL DEFAULT 0,
  "metadata" JSONB NOT NULL DEFAULT '{}',
  "created_by" TEXT NOT NULL,
  "execution_id" UUID,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  PRIMARY KEY ("work_product_id", "revision")
);
CREATE INDEX "work_product_revisions_branch_idx" ON "work_product_revisions" ("branch", "work_product_id", "revision" DESC);
CREATE INDEX "work_product_revisions_execution_idx" ON "work_product_revisions" ("execution_id") WHERE "execution_id" IS NOT NULL;

CREATE TABLE "work_product_constraints" (
  "work_product_id" UUID NOT NULL REFERENCES "work_products" ("id"),
  "revision" INTEGER NOT NULL,
  "branch" TEXT NOT NULL REFERENCES "twin_branches" ("name"),
  "constraints" JSONB NOT NULL,
  "created_by" TEXT NOT NULL,
  "execution_id" UUID,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  PRIMARY KEY ("work_product_id", "revision")
);
CREATE INDEX "work_product_constraints_branch_idx" ON "work_product_constraints" ("branch", "work_product_id", "revision" DESC);

-- Which revisions an execution read (what it wrote is on the revision itself).
CREATE TABLE "twin_reads" (
  "execution_id" UUID NOT NULL,
  "work_product_id" UUID NOT NULL REFERENCES "work_products" ("id"),
  "revision" INTEGER NOT NULL,
  "at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("execution_id", "work_product_id", "revision")
);
CREATE INDEX "twin_reads_revision_idx" ON "twin_reads" ("work_product_id", "revision");

-- The branch an execution works on.
ALTER TABLE "executions" ADD COLUMN "branch" TEXT NOT NULL DEFAULT 'main';

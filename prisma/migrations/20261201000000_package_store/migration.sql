-- Content-addressed package store: every file once by its sha256, every package once by the hash
-- of its canonical manifest (libs/package-store). Both are immutable and never deleted here.
CREATE TABLE "package_blobs" (
    "sha256" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "content" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "package_blobs_pkey" PRIMARY KEY ("sha256")
);

CREATE TABLE "packages" (
    "content_hash" TEXT NOT NULL,
    "manifest" JSONB NOT NULL,
    "file_count" INTEGER NOT NULL,
    "total_size" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "packages_pkey" PRIMARY KEY ("content_hash")
);

CREATE FUNCTION "package_store_immutable"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is immutable (% refused)', TG_TABLE_NAME, TG_OP;
END;
$$;

CREATE TRIGGER "package_blobs_immutable" BEFORE UPDATE OR DELETE ON "package_blobs"
  FOR EACH ROW EXECUTE FUNCTION "package_store_immutable"();
CREATE TRIGGER "packages_immutable" BEFORE UPDATE OR DELETE ON "packages"
  FOR EACH ROW EXECUTE FUNCTION "package_store_immutable"();

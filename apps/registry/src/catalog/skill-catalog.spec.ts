import { SkillCatalog } from './skill-catalog.js';
import type { SkillRecord, SkillVersionRecord } from './skill-records.js';
import type { SkillChange, SkillsRepository } from './skills.repository.js';

function version(name: string, semver: string, lockVersion = 0): SkillVersionRecord {
  const [major, minor, patch] = semver.split('.').map(Number) as [number, number, number];
  return {
    id: `${name}@${semver}`,
    name,
    version: semver,
    versionKey: [major, minor, patch, ''],
    status: 'REGISTERED',
    dependsOn: [],
    pendingDependencies: [],
    validation: [],
    lockVersion,
  } as unknown as SkillVersionRecord;
}

function change(row: SkillVersionRecord): SkillChange {
  return { name: row.name, versionId: row.id, lockVersion: row.lockVersion };
}

/**
 * Postgres as the catalog sees it: rows committed so far, and a change channel. A read takes its
 * snapshot when it is issued (as a statement does) and, while `hold` is set, answers only when released —
 * a slow pool connection under load.
 */
class FakeRepository {
  readonly rows: SkillVersionRecord[] = [];
  notify: (change: SkillChange) => void = () => undefined;
  reconnect: () => void = () => undefined;
  hold = false;
  private held: (() => void)[] = [];

  commit(row: SkillVersionRecord): void {
    this.rows.push(row);
  }

  async listenForChanges(onChange: (change: SkillChange) => void, onReconnect: () => void): Promise<void> {
    this.notify = onChange;
    this.reconnect = onReconnect;
  }

  loadAll(): Promise<SkillRecord[]> {
    const names = [...new Set(this.rows.map((row) => row.name))].sort();
    return this.answer(names.map((name) => this.snapshot(name)).filter((skill): skill is SkillRecord => skill !== null));
  }

  loadSkill(name: string): Promise<SkillRecord | null> {
    return this.answer(this.snapshot(name));
  }

  /** Answers every read held so far (in order), and lets later reads answer at once. */
  async release(): Promise<void> {
    this.hold = false;
    for (const answer of this.held.splice(0)) answer();
    await settle();
  }

  private snapshot(name: string): SkillRecord | null {
    const versions = this.rows.filter((row) => row.name === name).map((row) => ({ ...row }));
    return versions.length ? { name, versions: versions.reverse() } : null;
  }

  private answer<T>(value: T): Promise<T> {
    if (!this.hold) return Promise.resolve(value);
    return new Promise((resolve) => this.held.push(() => resolve(value)));
  }
}

/** Lets every promise chain already started run to its end. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function startCatalog(repository: FakeRepository): Promise<SkillCatalog> {
  const catalog = new SkillCatalog(repository as unknown as SkillsRepository);
  await catalog.start();
  return catalog;
}

const versionsOf = (catalog: SkillCatalog, name: string) => catalog.get(name)?.versions.map((v) => v.version) ?? [];

describe('SkillCatalog freshness (issue 30: a version lost at start-up)', () => {
  it('keeps a version written while a reload of its skill was reading (two versions of one skill registered at once)', async () => {
    const db = new FakeRepository();
    const catalog = await startCatalog(db);

    // 0.1.0 commits; its notification arrives before its insert result, so the catalog reloads the skill.
    const old = version('validate_stress', '0.1.0');
    db.commit(old);
    db.hold = true;
    db.notify(change(old));
    // The reload has read the rows (only 0.1.0) but its answer is slow; meanwhile both inserts return.
    catalog.applyVersion(old);
    const current = version('validate_stress', '1.0.0');
    db.commit(current);
    catalog.applyVersion(current);
    db.notify(change(current)); // finds the catalog current: no reload of its own
    expect(versionsOf(catalog, 'validate_stress')).toEqual(['1.0.0', '0.1.0']);

    await db.release();
    expect(versionsOf(catalog, 'validate_stress')).toEqual(['1.0.0', '0.1.0']);
    expect(catalog.version('validate_stress', '1.0.0')).toBeDefined();
  });

  it('keeps a newer state of a version written while a reload was reading', async () => {
    const db = new FakeRepository();
    const first = version('export_mesh', '0.2.0', 0);
    db.commit(first);
    const catalog = await startCatalog(db);

    db.hold = true;
    void catalog.reload('export_mesh'); // reads lock 0
    const promoted = { ...first, status: 'ACTIVE', lockVersion: 1 } as SkillVersionRecord;
    db.rows.splice(0, 1, promoted);
    catalog.applyVersion(promoted);
    await db.release();
    expect(catalog.version('export_mesh', '0.2.0')).toMatchObject({ status: 'ACTIVE', lockVersion: 1 });
  });

  it('keeps a version written while the whole catalog was reloading (after the listener reconnected)', async () => {
    const db = new FakeRepository();
    db.commit(version('export_mesh', '0.1.0'));
    const catalog = await startCatalog(db);

    db.hold = true;
    db.reconnect(); // reloadAll reads export_mesh only
    const written = version('validate_stress', '1.0.0');
    db.commit(written);
    catalog.applyVersion(written);
    await db.release();
    expect(catalog.version('validate_stress', '1.0.0')).toBeDefined();
    expect(catalog.version('export_mesh', '0.1.0')).toBeDefined();
  });

  it('does not read back its own write: the notification that beats the write result waits for it (issue 31: a read per registered package)', async () => {
    const db = new FakeRepository();
    const catalog = await startCatalog(db);
    let reads = 0;
    const loadSkill = db.loadSkill.bind(db);
    db.loadSkill = (name: string) => {
      reads++;
      return loadSkill(name);
    };
    const written = version('export_bom', '0.1.1');
    await catalog.writing('export_bom', async () => {
      db.commit(written);
      db.notify(change(written)); // on the LISTEN connection, before the insert's result
      await settle();
      catalog.applyVersion(written);
      return written;
    });
    await settle();
    expect(reads).toBe(0);
    expect(catalog.version('export_bom', '0.1.1')).toBeDefined();
  });

  it("reloads after its write for another writer's change of the same skill that came in meanwhile", async () => {
    const db = new FakeRepository();
    const catalog = await startCatalog(db);
    const own = version('export_bom', '0.1.1');
    const theirs = version('export_bom', '0.2.0');
    await catalog.writing('export_bom', async () => {
      db.commit(own);
      db.commit(theirs); // another replica's insert
      db.notify(change(theirs));
      db.notify(change(own));
      catalog.applyVersion(own);
    });
    await settle();
    expect(versionsOf(catalog, 'export_bom')).toEqual(['0.2.0', '0.1.1']);
  });

  it('reloads after a write that failed when a change came in meanwhile', async () => {
    const db = new FakeRepository();
    const catalog = await startCatalog(db);
    const theirs = version('export_bom', '0.1.1');
    await expect(
      catalog.writing('export_bom', async () => {
        db.commit(theirs);
        db.notify(change(theirs));
        throw new Error('unique violation');
      }),
    ).rejects.toThrow('unique violation');
    await settle();
    expect(catalog.version('export_bom', '0.1.1')).toBeDefined();
  });

  it('still applies what another replica wrote (a notification for a version it does not hold)', async () => {
    const db = new FakeRepository();
    const catalog = await startCatalog(db);
    const elsewhere = version('echo_text', '1.0.0');
    db.commit(elsewhere);
    db.notify(change(elsewhere));
    await settle();
    expect(catalog.version('echo_text', '1.0.0')).toBeDefined();
  });

  it('gives a reload that keeps being overtaken a bounded number of reads, then keeps the newer of each version', async () => {
    const db = new FakeRepository();
    const catalog = await startCatalog(db);
    let lock = 0;
    let reads = 0;
    const row = version('busy', '1.0.0', lock);
    db.commit(row);
    // Every read is overtaken by a write of this process before it answers.
    db.loadSkill = async (name: string) => {
      reads++;
      const snapshot = { name, versions: [{ ...(db.rows[0] as SkillVersionRecord) }] };
      const newer = { ...row, lockVersion: ++lock };
      db.rows.splice(0, 1, newer);
      catalog.applyVersion(newer);
      return snapshot;
    };
    await catalog.reload('busy');
    expect(reads).toBeLessThanOrEqual(5);
    expect(catalog.version('busy', '1.0.0')?.lockVersion).toBe(lock);
  });
});

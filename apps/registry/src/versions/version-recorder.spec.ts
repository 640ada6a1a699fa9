import type { PackageFile } from '#package-store/index.js';
import type { NewLifecycleEvent, NewSkillVersion, SkillVersionRecord } from '../catalog/skill-records.js';
import { VersionRecorder } from './version-recorder.js';

/** The recorder's batching rule with stand-ins for its ports: which statements new versions go out in. */
function recorder() {
  const batches: string[][] = [];
  const saved: number[] = [];
  const applied: string[] = [];
  const reloaded: string[] = [];
  let release: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  const repository = {
    async createVersions(items: { version: NewSkillVersion }[]) {
      batches.push(items.map(({ version }) => `${version.name}@${version.version}`));
      await gate;
      // 'taken' stands for a version another process stored first.
      return items.map(({ version }) =>
        version.name === 'taken' ? null : ({ ...version, id: version.name } as unknown as SkillVersionRecord),
      );
    },
  };
  const catalog = {
    writingAll: <T>(_names: string[], write: () => Promise<T>) => write(),
    applyVersion: (row: SkillVersionRecord) => applied.push(row.name),
    reload: async (name: string) => void reloaded.push(name),
  };
  const events = { publish: async () => undefined };
  const packages = { saveMany: async (lists: PackageFile[][]) => void saved.push(lists.length) };
  const instance = new VersionRecorder(repository as never, catalog as never, events as never, packages as never);
  return {
    instance,
    batches,
    saved,
    applied,
    reloaded,
    hold: () => (gate = new Promise((resolve) => (release = resolve))),
    release: () => release(),
  };
}

const version = (name: string, number = '1.0.0') => ({ name, version: number }) as NewSkillVersion;
const creation: NewLifecycleEvent = { from: null, to: 'REGISTERED', actor: 'test', reason: null };

describe('VersionRecorder.recordVersion', () => {
  it('writes a lone new version at once, in a statement of its own', async () => {
    const { instance, batches, saved } = recorder();
    expect(await instance.recordVersion([], version('a'), creation)).toMatchObject({ name: 'a' });
    expect(batches).toEqual([['a@1.0.0']]);
    expect(saved).toEqual([1]);
  });

  it('gathers the versions that arrive while a batch is in flight into the next statement, with their packages', async () => {
    const { instance, batches, saved, applied, hold, release } = recorder();
    hold();
    const first = instance.recordVersion([], version('a'), creation);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = ['b', 'c', 'd'].map((name) => instance.recordVersion([], version(name), creation));
    release();
    await Promise.all([first, ...rest]);
    expect(batches).toEqual([['a@1.0.0'], ['b@1.0.0', 'c@1.0.0', 'd@1.0.0']]);
    expect(saved).toEqual([1, 3]);
    expect(applied).toEqual(['a', 'b', 'c', 'd']);
  });

  it('never puts one version twice in a batch, and answers null (reloading the skill) for one stored already', async () => {
    const { instance, batches, reloaded, hold, release } = recorder();
    hold();
    const first = instance.recordVersion([], version('a'), creation);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [version('b'), version('b'), version('taken')].map((v) => instance.recordVersion([], v, creation));
    release();
    const results = await Promise.all([first, ...rest]);
    expect(batches.slice(1)).toEqual([['b@1.0.0', 'taken@1.0.0'], ['b@1.0.0']]);
    expect(results.map((row) => row?.name ?? null)).toEqual(['a', 'b', 'b', null]);
    expect(reloaded).toEqual(['taken']);
  });
});

import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { packPackageArchive, readPackageDir } from '#package-store/index.js';
import type { Page } from 'playwright-core';
import { freePort, startAdapterProcess, type AdapterProcess } from '../adapters/support.js';
import { type RunningBrowser, screenshot, seriousViolations, startBrowser } from '../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { obliterateQueue } from '../support/executions.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { ADMIN_TOKEN, AGENT_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { REPO_ROOT, tempRoot, writeEchoSkill } from '../support/skill-packages.js';

// What the steps passed to page.evaluate touch in the browser (this program is typed for Node, without the DOM).
declare const window: { innerWidth: number };
declare const document: { documentElement: { scrollWidth: number }; activeElement: { textContent: string | null; id: string } | null };
declare const DataTransfer: new () => { items: { add(file: unknown): void } };

const CATALOG = path.join(REPO_ROOT, 'skills');
const CONSOLE_DIR = path.join(REPO_ROOT, 'dist/console');
/** How long one step waits for the page (a run or a promotion waits longer, each says so). */
const UI_TIMEOUT = 20_000;
/** One test's limit: its steps, and a promotion or an execution through the executor. */
const TEST_TIMEOUT = 180_000;

/**
 * The console in a real browser (Debian's chromium driven by playwright-core) against a real registry,
 * executor and gmsh adapter: search → skill → compare two versions → promote → run from the form → live
 * events → the execution; deprecate with dependents and usage shown first; an agent token sees no admin
 * action and the API refuses a forged one; publish by drag and drop with a failing then a passing dry run;
 * a twin revision downloaded byte for byte. Every page is checked with axe (no serious or critical
 * violation) and photographed into test/e2e/console-screenshots/.
 */
describe('console (browser)', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let gmsh: AdapterProcess;
  let browser: RunningBrowser;
  let page: Page;
  let packages: string;
  const queuePrefix = `test-console-${process.pid}-${Date.now()}`;
  const admin = (method: string, p: string, body?: unknown) => call(registry.baseUrl, method, p, { token: ADMIN_TOKEN, body });
  const url = (p: string) => `${registry.baseUrl}/console${p}`;

  async function signIn(token: string): Promise<void> {
    await page.goto(url('/sign-in'));
    await page.getByLabel('Token').fill(token);
    await page.locator('main').getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('identity').waitFor();
  }

  async function accessible(name: string): Promise<void> {
    await screenshot(page, name);
    expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
  }

  beforeAll(async () => {
    if (!existsSync(path.join(CONSOLE_DIR, 'index.html'))) {
      throw new Error(`${CONSOLE_DIR} has no console: run "node scripts/build-if-changed.mjs" first (npm test does)`);
    }
    db = await createTestDatabase('console');
    const port = await freePort();
    gmsh = await startAdapterProcess('gmsh', port);
    const env = { TOOL_ADAPTERS: `gmsh=${gmsh.url}`, CONSOLE_DIR };
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [CATALOG], queuePrefix, agentTokens: true, env });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env });
    // compare_results runs from the form; export_mesh 0.1.0 is ACTIVE so that the console can promote 0.2.1 and deprecate 0.1.0.
    for (const [name, version] of [
      ['compare_results', '0.1.0'],
      ['export_mesh', '0.1.0'],
    ]) {
      const promoted = await admin('POST', `/v1/admin/skills/${name}/versions/${version}/promote`, { reason: 'examples pass' });
      if (promoted.status !== 200) throw new Error(`promotion of ${name} ${version} failed: ${JSON.stringify(promoted.body)}`);
    }
    packages = await mkdtemp(path.join(os.tmpdir(), 'console-packages-'));
    browser = await startBrowser();
    page = browser.page;
    page.setDefaultTimeout(UI_TIMEOUT);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await executor?.stop();
    await registry?.stop();
    await gmsh?.kill();
    await obliterateQueue(queuePrefix);
    await db?.drop();
  });

  afterEach(() => {
    // No page of the console may break its Content-Security-Policy or throw.
    expect(browser.errors).toEqual([]);
  });

  it(
    'is served at /console with a strict Content-Security-Policy, immutable hashed assets and deep links',
    async () => {
      const index = await fetch(url('/'));
      expect(index.status).toBe(200);
      const csp = index.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/unsafe-(inline|eval)|https?:/);
      expect(index.headers.get('cache-control')).toBe('no-cache');
      const html = await index.text();
      const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1] as string;
      const asset = await fetch(`${registry.baseUrl}${script}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('content-type')).toMatch(/^(application|text)\/javascript/);
      // Sent compressed to a client that accepts it (compressed on this first request), and it decodes to the script.
      expect(asset.headers.get('content-encoding')).toBe('gzip');
      expect((await asset.text()).length).toBeGreaterThan(1024);
      // A page of the app (a deep link) gets the app; a missing asset is a 404, never the app.
      expect(await (await fetch(url('/skills/compare_results?tab=versions'))).text()).toBe(html);
      expect((await fetch(url('/assets/missing-0000.js'))).status).toBe(404);
      // Only the built files are served, whatever the path says (they are held in memory, looked up by name).
      for (const hostile of [
        '/assets/..%2f..%2fpackage.json',
        '/..%2f..%2f..%2fpackage.json',
        '/%2e%2e/%2e%2e/package.json',
        '/assets/%00.js',
      ]) {
        const answer = await fetch(url(hostile));
        expect({ hostile, refused: answer.status === 404 || answer.status === 400 }).toEqual({ hostile, refused: true });
        expect(await answer.text()).not.toContain('"workspaces"');
      }
      // With AGENT_TOKENS set the API needs a token, the console itself does not.
      expect((await call(registry.baseUrl, 'GET', '/v1/access')).status).toBe(401);
    },
    TEST_TIMEOUT,
  );

  it(
    'as an admin: search, open a skill, compare two versions side by side (compatibility and file diff)',
    async () => {
      await signIn(ADMIN_TOKEN);
      await page.getByRole('searchbox', { name: 'Search skills' }).fill('mesh');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForURL(/\?q=mesh/);
      const results = page.getByTestId('catalog-results');
      await results.getByRole('link', { name: 'export_mesh' }).waitFor();
      expect(await page.getByRole('button', { name: /^mechanical/ }).count()).toBeGreaterThan(0); // facets
      await accessible('catalog');

      await results.getByRole('link', { name: 'export_mesh' }).click();
      await page.getByRole('heading', { level: 1, name: /export_mesh/ }).waitFor();
      // The tool it requires, available now (the gmsh adapter runs).
      await page.getByText('gmsh.export_mesh').waitFor();
      expect(await page.locator('.tools li.ok').count()).toBe(1);
      await accessible('skill-contract');

      await page.getByRole('tab', { name: 'Instructions' }).click();
      await page.locator('.markdown h1, .markdown h2').first().waitFor();
      await accessible('skill-instructions');
      await page.getByRole('tab', { name: 'Files' }).click();
      await page.getByRole('button', { name: 'definition.json' }).waitFor();
      await accessible('skill-files');

      await page.getByRole('tab', { name: 'Versions' }).click();
      await page.getByTestId('timeline').getByText('examples pass').waitFor();
      await page.getByLabel('From', { exact: true }).selectOption('0.1.0');
      await page.getByLabel('To', { exact: true }).selectOption('0.2.1');
      const report = page.getByTestId('compatibility');
      await report.getByText(/0\.1\.0 → 0\.2\.1/).waitFor();
      // Each change points at both schemas: choosing one shows the schema at its pointer on both sides.
      const firstChange = report.locator('button.change').first();
      if ((await firstChange.count()) > 0) {
        await firstChange.click();
        await report.getByRole('heading', { level: 4, name: /0\.1\.0 at/ }).waitFor();
        await report.getByRole('heading', { level: 4, name: /0\.2\.1 at/ }).waitFor();
      }
      const changed = page.getByTestId('file-changes').getByRole('button', { name: 'definition.json' });
      await changed.click();
      await page.getByTestId('file-diff').locator('.added').first().waitFor();
      expect(await page.getByTestId('file-diff').locator('.removed').count()).toBeGreaterThan(0);
      await accessible('skill-compare');
    },
    TEST_TIMEOUT,
  );

  it(
    'as an admin: promote with a reason (the evidence run shown), then deprecate with successor and sunset after seeing dependents and usage',
    async () => {
      await page.goto(url('/skills/export_mesh?version=0.2.1'));
      await page.getByRole('button', { name: 'Promote 0.2.1…' }).click();
      const dialog = page.getByRole('dialog', { name: /Promote export_mesh 0\.2\.1/ });
      await dialog.getByLabel(/Reason/).fill('meshes from the twin; examples pass');
      await accessible('promote-dialog');
      await dialog.getByRole('button', { name: 'Promote', exact: true }).click();
      await dialog.getByTestId('promote-result').getByText('is ACTIVE').waitFor({ timeout: 120_000 });
      await dialog.getByLabel('Promotion evidence').waitFor();
      expect(await dialog.getByLabel('Promotion evidence').textContent()).toContain('examples');
      await dialog.getByRole('button', { name: 'Close' }).click();
      expect((await admin('GET', '/v1/skills/export_mesh/versions/0.2.1')).body.status).toBe('ACTIVE');

      await page.goto(url('/skills/export_mesh?version=0.1.0'));
      await page.getByRole('button', { name: 'Deprecate 0.1.0…' }).click();
      const deprecate = page.getByRole('dialog', { name: /Deprecate export_mesh 0\.1\.0/ });
      // Who would be affected comes first: its calls (the promotion ran none as a caller) and its dependents.
      await deprecate
        .getByTestId('deprecate-impact')
        .getByText(/No other skill depends on it|dependent version/)
        .waitFor();
      await deprecate.getByLabel(/^Reason/).fill('reads the model from the twin now');
      await deprecate.getByLabel(/^Successor/).fill('export_mesh@0.2.1');
      const sunset = new Date(Date.now() + 90 * 86_400_000);
      await deprecate.getByLabel(/^Sunset/).fill(`${sunset.toISOString().slice(0, 10)}T12:00`);
      const submit = deprecate.getByRole('button', { name: 'Deprecate', exact: true });
      expect(await submit.isDisabled()).toBe(true); // not before the confirmation
      await deprecate.getByLabel(/I have seen who depends on it/).check();
      await accessible('deprecate-dialog');
      await submit.click();
      await page.getByRole('note').filter({ hasText: 'Deprecated since' }).waitFor();
      const deprecated = (await admin('GET', '/v1/skills/export_mesh/versions/0.1.0')).body;
      expect(deprecated).toMatchObject({
        status: 'DEPRECATED',
        deprecation: { reason: 'reads the model from the twin now', successor: 'export_mesh@0.2.1' },
      });
      const history = (await admin('GET', '/v1/skills/export_mesh/history')).body.items;
      expect(history.at(-1)).toMatchObject({
        version: '0.1.0',
        to: 'DEPRECATED',
        actor: 'root',
        reason: 'reads the model from the twin now',
      });
    },
    TEST_TIMEOUT,
  );

  it(
    'runs a skill from the form generated from its input schema (validated in the browser), with live events, then opens the execution',
    async () => {
      await page.goto(url('/skills/compare_results'));
      await page.getByRole('link', { name: 'Run it' }).click();
      await page.getByRole('heading', { level: 1, name: /Run compare_results/ }).waitFor();
      // The browser validates with the skill's own schema before anything is sent.
      await page.getByRole('button', { name: /Use example 1/ }).click();
      await page.getByLabel('abs_tol').fill('-1');
      await page
        .getByTestId('validation')
        .getByText(/problem/)
        .waitFor();
      expect(await page.getByRole('button', { name: 'Run', exact: true }).isDisabled()).toBe(true);
      await page.getByLabel('abs_tol').fill('0.25');
      await page.getByTestId('validation').getByText('The input matches the schema.').waitFor();
      await page.getByLabel('Twin branch (optional)').fill('main');
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      const events = page.getByTestId('events');
      await events.getByText('succeeded', { exact: true }).waitFor({ timeout: 120_000 });
      for (const type of ['queued', 'started']) expect(await events.getByText(type, { exact: true }).count()).toBe(1);
      await page.getByRole('heading', { name: 'Output' }).waitFor();
      await page.getByLabel('Output').getByText('"passed"').waitFor();
      await accessible('run');

      await page
        .getByRole('heading', { name: /^Execution / })
        .getByRole('link')
        .click();
      await page.getByRole('heading', { level: 1, name: 'Execution' }).waitFor();
      await page.getByText('SUCCEEDED').first().waitFor();
      await page.getByTestId('events').getByText('succeeded', { exact: true }).waitFor();
      expect(await page.getByTestId('trace-id').textContent()).toMatch(/^[0-9a-f]{32}$|^—$/);
      await accessible('execution');

      await page.goto(url('/executions?skill=compare_results&status=SUCCEEDED'));
      await page.getByTestId('executions').getByText('compare_results 0.1.0').first().waitFor();
      await page.getByLabel('Since').waitFor();
      await accessible('executions');
    },
    TEST_TIMEOUT,
  );

  it(
    'shows the end of a run even when the reads of its record failed (503) or raced the end (still RUNNING)',
    async () => {
      // The page's reads of the execution: the first answers 503, then each is a copy still RUNNING until the final
      // event has been shown (and one more after it); then they pass. Once, a read that raced the end left the page
      // showing no output (a failed read was never retried, nor a stale one read again).
      let reads = 0;
      let endShown = false;
      let staleAfterEnd = 1;
      const isRecord = (target: URL) => /\/v1\/executions\/[0-9a-f-]{36}$/.test(target.pathname);
      await page.route(isRecord, async (route) => {
        if (route.request().method() !== 'GET') return route.continue();
        reads++;
        if (reads === 1) {
          return route.fulfill({
            status: 503,
            contentType: 'application/problem+json',
            body: JSON.stringify({ type: 'about:blank', title: 'Database unavailable', status: 503, code: 'DATABASE_UNAVAILABLE' }),
          });
        }
        if (!endShown || staleAfterEnd-- > 0) {
          const response = await route.fetch();
          const body = (await response.json()) as Record<string, unknown>;
          return route.fulfill({ response, json: { ...body, status: 'RUNNING', output: null, error: null, finished_at: null } });
        }
        return route.continue();
      });
      try {
        await page.goto(url('/skills/compare_results/run'));
        await page.getByRole('heading', { level: 1, name: /Run compare_results/ }).waitFor();
        await page.getByRole('button', { name: /Use example 1/ }).click();
        await page.getByTestId('validation').getByText('The input matches the schema.').waitFor();
        await page.getByRole('button', { name: 'Run', exact: true }).click();
        await page.getByTestId('events').getByText('succeeded', { exact: true }).waitFor({ timeout: 120_000 });
        endShown = true;
        await page.getByLabel('Output').getByText('"passed"').waitFor({ timeout: 20_000 });
        expect(reads).toBeGreaterThanOrEqual(3);
      } finally {
        await page.unroute(isRecord);
        // The 503 this test answered is logged by the browser as a failed load: expected here, and only here.
        const injected = browser.errors.findIndex((error) => error.includes('status of 503'));
        if (injected >= 0) browser.errors.splice(injected, 1);
      }
    },
    TEST_TIMEOUT,
  );

  it(
    'as an agent: the same page shows no admin action, and the API refuses a forged one',
    async () => {
      // The pages first as the admin: each offers an action (so that its absence below means something).
      const pages = [
        { path: '/skills/compare_results', action: 'Deprecate 0.1.0…' }, // ACTIVE
        { path: '/skills/check_memory_budget', action: 'Promote 0.1.0…' }, // REGISTERED
      ];
      for (const { path: target, action } of pages) {
        await page.goto(url(target));
        await page.getByRole('button', { name: action }).waitFor();
      }
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(AGENT_TOKEN);
      expect(await page.getByTestId('identity').textContent()).toContain('agent');
      for (const { path: target } of pages) {
        await page.goto(url(target));
        await page.locator('h1').first().waitFor();
        await page
          .getByRole('link', { name: 'Run it' })
          .or(page.getByRole('tab', { name: 'Contract' }))
          .first()
          .waitFor();
        await page.waitForLoadState('networkidle');
        expect({ target, actions: await page.getByRole('button', { name: /Promote|Deprecate/ }).count() }).toEqual({ target, actions: 0 });
      }
      expect(await page.getByRole('link', { name: 'Publish' }).count()).toBe(0);
      await accessible('skill-as-agent');
      // What a person could send from the page by hand with this token: refused, nothing changed.
      const before = (await admin('GET', '/v1/skills/check_memory_budget/versions/0.1.0')).body;
      expect(before.status).toBe('REGISTERED');
      const forged = await page.evaluate(async (token) => {
        const response = await fetch('/v1/admin/skills/check_memory_budget/versions/0.1.0/promote', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ reason: 'forged', force: true }),
        });
        return { status: response.status, body: await response.json() };
      }, AGENT_TOKEN);
      expect(forged).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
      const after = (await admin('GET', '/v1/skills/check_memory_budget/versions/0.1.0')).body;
      expect({ status: after.status, changed: after.status_changed_at }).toEqual({
        status: before.status,
        changed: before.status_changed_at,
      });
    },
    TEST_TIMEOUT,
  );

  it(
    'publishes by drag and drop: a failing dry run is shown with its report, then a passing one is stored',
    async () => {
      const root = await tempRoot('console-publish-');
      const broken = await writeEchoSkill(root, { name: 'console_broken', definition: { timeout_seconds: -5 } });
      const good = await writeEchoSkill(root, { name: 'console_echo' });
      // Its instructions try what an adversary would: raw HTML, a script, a javascript: link, an image that runs code.
      await writeFile(
        path.join(good, 'SKILL.md'),
        '---\nname: console-echo\ndescription: Echoes a text back with its length (test-only skill).\n---\n\n# console_echo\n\n' +
          '<script>window.__pwned = 1</script>\n\n<img src=x onerror="window.__pwned = 2">\n\n' +
          '[click me](javascript:window.__pwned=3)\n\n| field | meaning |\n|---|---|\n| text | what to echo |\n',
      );
      const brokenArchive = path.join(packages, 'console_broken.tgz');
      const goodArchive = path.join(packages, 'console_echo.tgz');
      await writeFile(brokenArchive, await packPackageArchive(await readPackageDir(broken)));
      await writeFile(goodArchive, await packPackageArchive(await readPackageDir(good)));

      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(ADMIN_TOKEN);
      await page.getByRole('link', { name: 'Publish' }).click();
      await page.getByRole('heading', { level: 1, name: 'Publish a package' }).waitFor();
      // Drop the broken archive on the drop zone, as a person would drag it from a file manager.
      const bytes = [...(await readFile(brokenArchive))];
      const dataTransfer = await page.evaluateHandle((content) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(content)], 'console_broken.tgz', { type: 'application/gzip' }));
        return transfer;
      }, bytes);
      await page.getByTestId('dropzone').dispatchEvent('drop', { dataTransfer });
      const dryRun = page.getByTestId('dry-run');
      await dryRun.getByText('PACKAGE_INVALID').waitFor();
      await dryRun.getByTestId('validation-report').getByText('timeout_seconds', { exact: false }).first().waitFor();
      expect(await dryRun.getByRole('button', { name: /^Store/ }).count()).toBe(0);
      await accessible('publish-dry-run-failed');
      expect((await admin('GET', '/v1/skills/console_broken')).status).toBe(404);

      await page.getByLabel('Choose a file').setInputFiles(goodArchive);
      await dryRun.getByText(/Dry run passed: console_echo 1\.0\.0/).waitFor();
      expect((await admin('GET', '/v1/skills/console_echo')).status).toBe(404); // a dry run stores nothing
      await dryRun.getByRole('button', { name: 'Store console_echo 1.0.0' }).click();
      await page
        .getByTestId('published')
        .getByText(/Stored/)
        .waitFor();
      await accessible('publish-stored');
      expect((await admin('GET', '/v1/skills/console_echo')).body).toMatchObject({
        name: 'console_echo',
        version: '1.0.0',
        status: 'REGISTERED',
      });

      // Its SKILL.md rendered as Markdown (the table too), and nothing of the HTML or the script link alive.
      await page.getByTestId('published').getByRole('link', { name: 'console_echo 1.0.0' }).click();
      await page.getByRole('tab', { name: 'Instructions' }).click();
      await page.locator('.markdown table').getByText('what to echo').waitFor();
      expect(await page.locator('.markdown script, .markdown img').count()).toBe(0);
      expect(await page.locator('.markdown a', { hasText: 'click me' }).getAttribute('href')).toBeFalsy();
      await page.locator('.markdown a', { hasText: 'click me' }).click();
      expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
      await accessible('skill-instructions-hostile');
    },
    TEST_TIMEOUT,
  );

  it(
    'downloads a twin revision byte for byte, with its revisions, constraints and provenance',
    async () => {
      const first = Buffer.from([0, 1, 2, 250, 251, 252, 10, 13, 0]);
      const second = Buffer.from('second revision\n');
      const created = await fetch(`${registry.baseUrl}/v1/twin/branches/main/work-products?kind=cad_model&name=console-block`, {
        method: 'POST',
        headers: { authorization: `Bearer ${AGENT_TOKEN}`, 'content-type': 'application/octet-stream' },
        body: first,
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const revised = await fetch(`${registry.baseUrl}/v1/twin/branches/main/work-products/${id}/revisions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${AGENT_TOKEN}`, 'content-type': 'text/plain' },
        body: second,
      });
      expect(revised.status).toBe(201);

      await page.goto(url('/twin?branch=main'));
      await page
        .getByTestId('work-products')
        .getByRole('button', { name: /console-block/ })
        .click();
      await page.getByTestId('revisions').getByText('r2').first().waitFor();
      await page.getByTestId('provenance').waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download r1' }).click()]);
      const saved = await download.path();
      expect(Buffer.compare(await readFile(saved), first)).toBe(0);
      await accessible('twin');
    },
    TEST_TIMEOUT,
  );

  it(
    'works in a narrow window, from the keyboard, and asks no other origin for anything',
    async () => {
      await page.setViewportSize({ width: 420, height: 800 });
      for (const [name, target] of [
        ['narrow-catalog', '/'],
        ['narrow-skill', '/skills/compare_results'],
      ] as const) {
        await page.goto(url(target));
        await page.locator('h1').first().waitFor();
        await page.waitForLoadState('networkidle');
        await accessible(name);
        // Nothing wider than the window (tables scroll inside their own box).
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
      }
      await page.setViewportSize({ width: 1280, height: 800 });
      // The first Tab reaches "Skip to content", which moves the focus to the page's content.
      await page.goto(url('/skills/compare_results'));
      await page.locator('h1').first().waitFor();
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
      // The sections are tabs: arrow keys move between them.
      await page.getByRole('tab', { name: 'Contract' }).focus();
      await page.keyboard.press('ArrowRight');
      await page.getByRole('tab', { name: 'Instructions', selected: true }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Instructions');
      const origin = new URL(registry.baseUrl).origin;
      expect(browser.requests.filter((request) => !request.startsWith(`${origin}/`) && !/^(data|blob):/.test(request))).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});

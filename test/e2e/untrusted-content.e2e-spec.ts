// A publisher's files are served back from the origin of the registry's API and console: one that a browser would
// open as a page (HTML, SVG) must never run there. Real registry, real chromium.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type RunningBrowser, startBrowser } from '../support/browser.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot } from '../support/skill-packages.js';

/** Each page asks the registry for this path when its script runs: the request must never be seen. */
const RAN = '/v1/skills?ran-a-publisher-script=1';

async function writeAssetsPackage(root: string): Promise<void> {
  const dir = path.join(root, 'page-assets');
  await mkdir(path.join(dir, 'assets'), { recursive: true });
  await writeFile(
    path.join(dir, 'SKILL.md'),
    `---
name: page-assets
description: Shows a page and a logo. Use when the user asks for the assets.
metadata:
  dcc-mcp:
    version: "1.0.0"
---

# Page assets
`,
  );
  await writeFile(path.join(dir, 'assets', 'page.html'), `<!doctype html><h1>hello</h1><script>fetch('${RAN}&from=html')</script>`);
  await writeFile(
    path.join(dir, 'assets', 'logo.svg'),
    `<svg xmlns="http://www.w3.org/2000/svg"><script>fetch('${RAN}&from=svg')</script><circle r="4"/></svg>`,
  );
  await writeFile(path.join(dir, 'assets', 'data.json'), '{"a":1}');
}

describe('package files served back (browser)', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let browser: RunningBrowser;
  const file = (name: string) => `${registry.baseUrl}/v1/skills/page_assets/versions/1.0.0/files/assets/${name}`;

  beforeAll(async () => {
    db = await createTestDatabase('untrusted_content');
    const root = await tempRoot();
    await writeAssetsPackage(root);
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root] });
    browser = await startBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await registry?.stop();
    await db?.drop();
  });

  it('every file carries a sandboxing Content-Security-Policy and nosniff; a page or an SVG is a download', async () => {
    for (const [name, type, download] of [
      ['page.html', 'text/html; charset=utf-8', 'attachment; filename="page.html"'],
      ['logo.svg', 'image/svg+xml; charset=utf-8', 'attachment; filename="logo.svg"'],
      ['data.json', 'application/json; charset=utf-8', null],
    ] as const) {
      const response = await fetch(file(name));
      expect({ name, status: response.status, type: response.headers.get('content-type') }).toEqual({ name, status: 200, type });
      expect(response.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-disposition')?.split(';').slice(0, 2).join(';') ?? null).toBe(download);
    }
    const archive = await fetch(`${registry.baseUrl}/v1/skills/page_assets/versions/1.0.0/package`);
    expect(archive.headers.get('content-disposition')).toMatch(/^attachment; filename="page_assets-1.0.0.tar.gz"/);
    expect(archive.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("a browser sent to a package's HTML or SVG file downloads it; none of its script runs on the registry's origin", async () => {
    const page = browser.page;
    await page.goto(`${registry.baseUrl}/healthz`);
    for (const name of ['page.html', 'logo.svg']) {
      const downloaded = page.waitForEvent('download');
      await page.goto(file(name)).catch(() => undefined); // Playwright reports a navigation that became a download as an error
      expect((await downloaded).suggestedFilename()).toBe(name);
    }
    // An <img> is the one way an SVG renders in a page: as an image, where no script runs either.
    await page.setContent(`<img src="${file('logo.svg')}">`);
    await page.waitForLoadState('networkidle');
    expect(browser.requests.filter((url) => url.includes('ran-a-publisher-script'))).toEqual([]);
  });
});

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { REPO_ROOT } from './skill-packages.js';

/** Debian's chromium (scripts/install-programs.sh installs it); Playwright's own browser download does not work here. */
const CHROMIUM = '/usr/bin/chromium';

/** Where the console suite writes a screenshot of each page it visits (kept out of git: .gitignore). */
const SCREENSHOTS = path.join(REPO_ROOT, 'test/e2e/console-screenshots');

export interface RunningBrowser {
  context: BrowserContext;
  page: Page;
  /** Every URL the pages requested (to check that none goes to another origin). */
  requests: string[];
  /** Console errors and uncaught exceptions of the pages (a CSP violation is one). */
  errors: string[];
  close(): Promise<void>;
}

/** A fresh headless chromium (its own profile directory, no network beyond what the page asks for) at 1280×800. */
export async function startBrowser(): Promise<RunningBrowser> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const requests: string[] = [];
  const errors: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  context.on('page', (page) => watch(page, errors));
  const page = context.pages()[0] ?? (await context.newPage());
  watch(page, errors);
  await mkdir(SCREENSHOTS, { recursive: true });
  return {
    context,
    page,
    requests,
    errors,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

function watch(page: Page, errors: string[]): void {
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A refused API call (401, 403, 422 …) is logged by the browser as a failed resource: expected in these tests.
    if (message.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) {
      errors.push(`console: ${message.text()}`);
    }
  });
}

/** The serious and critical accessibility violations axe finds on the page (WCAG 2.1 A and AA rules). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** A full-page screenshot named after the page, for a reviewer. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

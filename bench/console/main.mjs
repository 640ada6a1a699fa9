/* global window, document, sessionStorage, PerformanceObserver, MutationObserver -- the functions passed to page.evaluate run in the browser */
// bench/console: the browser console's budget (issue 25), against the built registry on loopback with 1,000
// generated skills, in Debian's chromium (playwright-core), in one run:
//   - JavaScript ≤ 300 KB gzipped: every script of dist/console, as the registry serves it (gzip);
//   - first load of /console ≤ 1 s to interactive: a fresh browser profile (empty cache) opens /console/ with a
//     token, until the catalog's first cards are on screen and the main thread is idle (a long-task-free
//     100 ms after them); the baseline is the same browser loading the registry's constant-body page
//     (/bench/baseline) in the same run, printed as a ratio;
//   - the catalog with 1,000 skills rendered ≤ 200 ms after its data arrives: "More" until all 1,000 cards are
//     on screen, each page measured from the end of its response (resource timing) to its cards in the DOM;
//     the figure is the slowest page (the last one renders 1,000 cards).
// Usage: npm run bench:console   (BENCH_CONSOLE_ROUNDS, default 5: first loads, medians reported)
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { generateSkills } from '../support/generate-skills.mjs';
import { ADMIN_TOKEN, REPO_ROOT, benchDatabaseUrl, dropDatabase, startRegistryProcess, stopProcess } from '../support/registry-process.mjs';
import { median } from '../support/statistics.mjs';

const SKILLS = 1000;
const ROUNDS = Number(process.env.BENCH_CONSOLE_ROUNDS ?? 5);
const BUDGET = { jsGzipBytes: 300 * 1024, interactiveMs: 1000, renderMs: 200 };
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A fresh chromium with its own empty profile: a first visit, nothing cached. */
async function freshBrowser() {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'bench-console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: CHROMIUM_ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Scripts of the built console, gzipped as the registry serves them. */
async function javascriptSize(baseUrl) {
  const assets = path.join(REPO_ROOT, 'dist/console/assets');
  let raw = 0;
  let gzipped = 0;
  let served = 0;
  for (const name of (await readdir(assets)).filter((file) => file.endsWith('.js'))) {
    const bytes = await readFile(path.join(assets, name));
    raw += bytes.length;
    gzipped += gzipSync(bytes, { level: 9 }).length;
    // What came over the wire (fetch decodes the body; its Content-Length is the gzipped size).
    const response = await fetch(`${baseUrl}/console/assets/${name}`, { headers: { 'accept-encoding': 'gzip' } });
    await response.arrayBuffer();
    served += Number(response.headers.get('content-length') ?? bytes.length);
  }
  return { raw, gzipped, served };
}

/** Navigation start → the catalog's cards on screen and 100 ms without a long task. */
async function firstLoad(baseUrl) {
  const browser = await freshBrowser();
  try {
    const { page } = browser;
    // The token is in session storage before the app starts, as after a sign-in (an origin's storage needs a page of it).
    await page.goto(`${baseUrl}/bench/baseline?bytes=16`);
    await page.evaluate((token) => sessionStorage.setItem('skill-registry.token', token), ADMIN_TOKEN);
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) =>
        window.__longTasks.push(...list.getEntries().map((entry) => entry.startTime + entry.duration)),
      ).observe({
        type: 'longtask',
        buffered: true,
      });
    });
    await page.goto(`${baseUrl}/console/`, { waitUntil: 'commit' });
    await page.locator('[data-testid=catalog-results] li').first().waitFor({ timeout: 30_000 });
    const cardsAt = await page.evaluate(() => performance.now());
    await page.waitForTimeout(300);
    const longTaskEnd = await page.evaluate(() => Math.max(0, ...window.__longTasks));
    return Math.max(cardsAt, longTaskEnd);
  } finally {
    await browser.close();
  }
}

/** The same browser loading the registry's constant-body page: what any page of this server costs to load. */
async function baselineLoad(baseUrl) {
  const browser = await freshBrowser();
  try {
    await browser.page.goto(`${baseUrl}/bench/baseline?bytes=512`, { waitUntil: 'load' });
    return await browser.page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd);
  } finally {
    await browser.close();
  }
}

/** Every page of the catalog up to 1,000 cards: per page, its response's end → its cards in the DOM. */
async function renderTimes(baseUrl) {
  const browser = await freshBrowser();
  try {
    const { page } = browser;
    await page.goto(`${baseUrl}/bench/baseline?bytes=16`);
    await page.evaluate((token) => sessionStorage.setItem('skill-registry.token', token), ADMIN_TOKEN);
    await page.goto(`${baseUrl}/console/`);
    const cards = page.locator('[data-testid=catalog-results] > li');
    await cards.first().waitFor({ timeout: 30_000 });
    const times = [];
    for (;;) {
      const before = await cards.count();
      const more = page.getByRole('button', { name: 'More' });
      if (before >= SKILLS || (await more.count()) === 0) break;
      // Armed before the click: the time the list first holds more cards, and the end of the newest list response.
      await page.evaluate((count) => {
        window.__rendered = new Promise((resolve) => {
          const list = document.querySelector('[data-testid=catalog-results]');
          const observer = new MutationObserver(() => {
            if (list.children.length > count) {
              observer.disconnect();
              resolve(performance.now());
            }
          });
          observer.observe(list, { childList: true });
        });
      }, before);
      await more.click();
      const figures = await page.evaluate(async () => {
        const renderedAt = await window.__rendered;
        const responses = performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/v1/skills?'));
        return {
          renderedAt,
          responseEnd: responses.at(-1).responseEnd,
          count: document.querySelector('[data-testid=catalog-results]').children.length,
        };
      });
      times.push({ cards: figures.count, ms: figures.renderedAt - figures.responseEnd });
    }
    return { times, cards: await cards.count() };
  } finally {
    await browser.close();
  }
}

const root = await mkdtemp(path.join(os.tmpdir(), 'bench-console-'));
const databaseUrl = benchDatabaseUrl();
let registry;
try {
  console.log(`console bench: ${SKILLS} generated skills, ${ROUNDS} first loads, chromium ${chromium.name()} (Debian's)`);
  await generateSkills(root, SKILLS);
  registry = await startRegistryProcess({ DATABASE_URL: databaseUrl, SKILL_PATHS: root, BENCH_BASELINE_ROUTE: 'true', LOG_LEVEL: 'error' });

  const size = await javascriptSize(registry.url);
  const loads = [];
  const baselines = [];
  for (let round = 0; round < ROUNDS; round++) {
    baselines.push(await baselineLoad(registry.url));
    loads.push(await firstLoad(registry.url));
  }
  const render = await renderTimes(registry.url);
  const slowest = Math.max(...render.times.map((time) => time.ms));

  const interactive = median(loads);
  const baseline = median(baselines);
  const checks = [
    [
      'JavaScript, gzipped',
      size.gzipped,
      BUDGET.jsGzipBytes,
      `${(size.gzipped / 1024).toFixed(1)} KB (served ${(size.served / 1024).toFixed(1)} KB, raw ${(size.raw / 1024).toFixed(1)} KB)`,
      `${BUDGET.jsGzipBytes / 1024} KB`,
    ],
    [
      'first load to interactive (median)',
      interactive,
      BUDGET.interactiveMs,
      `${interactive.toFixed(0)} ms (${(interactive / baseline).toFixed(1)}× the baseline page's ${baseline.toFixed(0)} ms)`,
      `${BUDGET.interactiveMs} ms`,
    ],
    [
      'catalog render after data, slowest page',
      slowest,
      BUDGET.renderMs,
      `${slowest.toFixed(0)} ms (${render.cards} cards; pages ${render.times.map((time) => time.ms.toFixed(0)).join(', ')} ms)`,
      `${BUDGET.renderMs} ms`,
    ],
  ];
  let ok = render.cards >= SKILLS;
  if (!ok) console.log(`  only ${render.cards} of ${SKILLS} cards were shown`);
  for (const [what, value, budget, shown, budgetShown] of checks) {
    const pass = value <= budget;
    ok &&= pass;
    console.log(`  ${what}: ${shown}; budget ${budgetShown}, ratio ${(value / budget).toFixed(2)} ${pass ? 'PASS' : 'FAIL'}`);
  }
  console.log(
    `  first loads: ${loads.map((ms) => ms.toFixed(0)).join(', ')} ms; baseline loads: ${baselines.map((ms) => ms.toFixed(0)).join(', ')} ms`,
  );
  console.log(ok ? '\nall targets met' : '\nsome targets missed');
  process.exitCode = ok ? 0 : 1;
} finally {
  if (registry) await stopProcess(registry.child);
  await dropDatabase(databaseUrl).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
}

// Jest global setup (plain ESM: Jest does not map module paths here). Loads the TypeScript helpers through jiti.
import { createJiti } from 'jiti';
import { sourceAliases } from '../../scripts/source-aliases.mjs';

const jiti = createJiti(import.meta.url, { alias: sourceAliases() });

export default async function globalSetup() {
  const { prepareTemplateDatabase } = await jiti.import('./database.ts');
  process.env.SKILL_REGISTRY_TEST_TEMPLATE = await prepareTemplateDatabase();
}

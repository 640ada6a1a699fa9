import { createJiti } from 'jiti';
import { sourceAliases } from '../../scripts/source-aliases.mjs';

const jiti = createJiti(import.meta.url, { alias: sourceAliases() });

export default async function globalTeardown() {
  const template = process.env.SKILL_REGISTRY_TEST_TEMPLATE;
  if (!template) return;
  const { dropTemplateDatabase } = await jiti.import('./database.ts');
  await dropTemplateDatabase(template);
}

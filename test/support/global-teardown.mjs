import { createJiti } from 'jiti';

const jiti = createJiti(import.meta.url);

export default async function globalTeardown() {
  const template = process.env.SKILL_REGISTRY_TEST_TEMPLATE;
  if (!template) return;
  const { dropTemplateDatabase } = await jiti.import('./database.ts');
  await dropTemplateDatabase(template);
}

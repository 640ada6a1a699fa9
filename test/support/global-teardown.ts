import { dropTemplateDatabase } from './database.js';

export default async function globalTeardown(): Promise<void> {
  const template = process.env.SKILL_REGISTRY_TEST_TEMPLATE;
  if (template) await dropTemplateDatabase(template);
}

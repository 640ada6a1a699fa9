import { prepareTemplateDatabase } from './database.js';

export default async function globalSetup(): Promise<void> {
  process.env.SKILL_REGISTRY_TEST_TEMPLATE = await prepareTemplateDatabase();
}

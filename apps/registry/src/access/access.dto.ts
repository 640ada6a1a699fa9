import { z } from 'zod';

/** Query of GET /v1/access. */
export const accessQuery = z.object({ skill: z.string().min(1).max(200).optional() }).strict();

import { z } from '@skill-registry/sdk';

/** A memory address: a non-negative integer, or a hex string such as "0x08000000". */
const Address = z.union([
  z.number().int().nonnegative().describe('Address as an integer number of bytes from 0'),
  z
    .string()
    .regex(/^0[xX][0-9a-fA-F]+$/)
    .describe('Address as a hexadecimal string, e.g. "0x20000000"'),
]);

export const MemoryRegion = z
  .object({
    name: z.string().min(1).describe('Region name as in the linker script MEMORY block, e.g. "FLASH", "RAM", "CCMRAM"'),
    origin: Address.describe('Start address of the region in bytes (integer or hex string such as "0x08000000")'),
    length_bytes: z.number().int().positive().describe('Size of the region in bytes (e.g. 524288 for 512K)'),
    min_free_percent: z
      .number()
      .min(0)
      .max(100)
      .optional()
      .describe('Required free margin for this region in percent of length_bytes; overrides the call-level min_free_percent'),
  })
  .strict();

export const SectionSize = z
  .object({
    name: z.string().min(1).describe('Output section name as reported by arm-none-eabi-size -A or the linker map, e.g. ".text", ".bss"'),
    size_bytes: z.number().int().nonnegative().describe('Section size in bytes'),
    region: z
      .string()
      .optional()
      .describe('Region the section occupies at run time (its VMA region, e.g. "RAM" for .data/.bss); inferred from address when omitted'),
    load_region: z
      .string()
      .optional()
      .describe(
        'Region that additionally stores the section image to be copied at startup (its LMA region, e.g. "FLASH" for .data); omit for sections that are not copied',
      ),
    address: Address.optional().describe(
      'Run-time start address of the section in bytes (the addr column of size -A), used to infer or cross-check region',
    ),
  })
  .strict();

export const CheckMemoryBudgetInput = z
  .object({
    regions: z.array(MemoryRegion).min(1).describe('Memory regions of the MCU / linker script, names unique'),
    sections: z
      .array(SectionSize)
      .describe(
        'Allocated output sections with their sizes (.text, .rodata, .data, .bss, .heap, .stack, ...); .data counts in its region and in its load_region',
      ),
    min_free_percent: z
      .number()
      .min(0)
      .max(100)
      .describe('Required free margin in percent of each region length, for regions that set none (a region exactly at the margin passes)'),
  })
  .strict();

export const RegionSection = z.object({
  name: z.string().describe('Section name'),
  size_bytes: z.number().int().describe('Bytes this section takes in the region'),
  placement: z
    .enum(['run', 'load'])
    .describe('"run": the section lives here at run time; "load": the region holds its initial image (e.g. .data in FLASH)'),
});

export const RegionUsage = z.object({
  name: z.string().describe('Region name'),
  origin_hex: z.string().describe('Start address of the region as a hex string'),
  length_bytes: z.number().int().describe('Size of the region in bytes'),
  used_bytes: z.number().int().describe('Bytes used by the sections placed in the region (run and load images)'),
  free_bytes: z.number().int().describe('length_bytes - used_bytes; negative when the region overflows'),
  used_percent: z.number().describe('used_bytes / length_bytes in percent, rounded to 2 decimals'),
  free_percent: z.number().describe('free_bytes / length_bytes in percent, rounded to 2 decimals (negative on overflow)'),
  required_free_percent: z.number().describe('Margin applied to this region in percent of length_bytes'),
  required_free_bytes: z.number().int().describe('Margin applied in bytes: ceil(required_free_percent / 100 * length_bytes)'),
  headroom_bytes: z
    .number()
    .int()
    .describe('Bytes that can still be added before the margin is violated (free_bytes - required_free_bytes); negative = bytes to cut'),
  status: z
    .enum(['ok', 'below_margin', 'over_budget'])
    .describe('"over_budget": used exceeds length; "below_margin": fits but leaves less than the margin; "ok" otherwise'),
  sections: z.array(RegionSection).describe('Sections counted in this region, in input order'),
});

export const BudgetFinding = z.object({
  severity: z.enum(['error', 'warning']).describe('"error" fails the check; "warning" needs a look but does not fail it'),
  code: z
    .enum(['over_budget', 'below_margin', 'unknown_region', 'unplaced_section', 'address_region_mismatch', 'data_without_load_region'])
    .describe('Kind of finding'),
  region: z.string().nullable().describe('Region concerned, or null'),
  section: z.string().nullable().describe('Section concerned, or null'),
  message: z.string().describe('What is wrong, with the numbers, and what to do about it'),
});

export const CheckMemoryBudgetOutput = z.object({
  passed: z.boolean().describe('True when no finding has severity "error" (every region fits with its margin and every section is placed)'),
  regions: z.array(RegionUsage).describe('Usage per region, in input order'),
  findings: z.array(BudgetFinding).describe('Findings, errors first, then by region and section name'),
  error_count: z.number().int().describe('Number of findings with severity "error"'),
  warning_count: z.number().int().describe('Number of findings with severity "warning"'),
});

export type MemoryRegion = z.infer<typeof MemoryRegion>;
export type SectionSize = z.infer<typeof SectionSize>;
export type CheckMemoryBudgetInput = z.infer<typeof CheckMemoryBudgetInput>;
export type RegionSection = z.infer<typeof RegionSection>;
export type RegionUsage = z.infer<typeof RegionUsage>;
export type BudgetFinding = z.infer<typeof BudgetFinding>;
export type CheckMemoryBudgetOutput = z.infer<typeof CheckMemoryBudgetOutput>;

import type { BudgetFinding, CheckMemoryBudgetInput, MemoryRegion, RegionSection, RegionUsage, SectionSize } from './schema.js';

/** Integer address of an origin/address field (number or "0x..." string). */
export function toAddress(value: number | string): number {
  return typeof value === 'number' ? value : Number.parseInt(value.slice(2), 16);
}

export function hex(value: number): string {
  return `0x${value.toString(16).toUpperCase().padStart(8, '0')}`;
}

/** Rounded to 2 decimals for display; decisions use exact integers. */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Problems that make the input unusable (checked as preconditions). */
export function findInputProblems(input: CheckMemoryBudgetInput): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const region of input.regions) {
    if (seen.has(region.name)) problems.push(`region '${region.name}' is listed more than once; region names must be unique`);
    seen.add(region.name);
  }
  return problems;
}

function finding(
  severity: BudgetFinding['severity'],
  code: BudgetFinding['code'],
  region: string | null,
  section: string | null,
  message: string,
): BudgetFinding {
  return { severity, code, region, section, message };
}

function containingRegion(regions: MemoryRegion[], address: number): MemoryRegion | undefined {
  return regions.find((r) => address >= toAddress(r.origin) && address < toAddress(r.origin) + r.length_bytes);
}

function regionList(regions: MemoryRegion[]): string {
  return regions.map((r) => `${r.name} ${hex(toAddress(r.origin))}-${hex(toAddress(r.origin) + r.length_bytes - 1)}`).join(', ');
}

const INITIALIZED_DATA = /^\.data($|[._])/;

/** Put every section into its run region (and load region), collecting placement findings. */
export function placeSections(
  regions: MemoryRegion[],
  sections: SectionSize[],
): { placed: Map<string, RegionSection[]>; findings: BudgetFinding[] } {
  const placed = new Map<string, RegionSection[]>(regions.map((r) => [r.name, []]));
  const findings: BudgetFinding[] = [];
  const known = regions.map((r) => r.name).join(', ');

  for (const section of sections) {
    const address = section.address === undefined ? undefined : toAddress(section.address);
    const byAddress = address === undefined ? undefined : containingRegion(regions, address);
    let runRegion: string | undefined;
    if (section.region !== undefined) {
      if (!placed.has(section.region)) {
        findings.push(
          finding(
            'error',
            'unknown_region',
            section.region,
            section.name,
            `Section ${section.name} names region '${section.region}', which is not among the regions (${known}); fix the name or add the region.`,
          ),
        );
      } else {
        runRegion = section.region;
        if (address !== undefined && byAddress?.name !== section.region) {
          findings.push(
            finding(
              'warning',
              'address_region_mismatch',
              section.region,
              section.name,
              `Section ${section.name} is counted in ${section.region} as stated, but its address ${hex(address)} lies in ` +
                `${byAddress ? byAddress.name : 'no region'}; check the region or the address.`,
            ),
          );
        }
      }
    } else if (byAddress) {
      runRegion = byAddress.name;
    } else {
      const where =
        address === undefined ? 'has neither a region nor an address' : `at ${hex(address)} lies in no region (${regionList(regions)})`;
      findings.push(
        finding(
          'error',
          'unplaced_section',
          null,
          section.name,
          `Section ${section.name} (${section.size_bytes} bytes) ${where}; set its region so it can be counted.`,
        ),
      );
    }
    if (runRegion !== undefined) placed.get(runRegion)!.push({ name: section.name, size_bytes: section.size_bytes, placement: 'run' });

    if (section.load_region !== undefined) {
      if (!placed.has(section.load_region)) {
        findings.push(
          finding(
            'error',
            'unknown_region',
            section.load_region,
            section.name,
            `Section ${section.name} names load region '${section.load_region}', which is not among the regions (${known}); fix the name or add the region.`,
          ),
        );
      } else {
        placed.get(section.load_region)!.push({ name: section.name, size_bytes: section.size_bytes, placement: 'load' });
      }
    } else if (INITIALIZED_DATA.test(section.name) && section.size_bytes > 0) {
      findings.push(
        finding(
          'warning',
          'data_without_load_region',
          runRegion ?? null,
          section.name,
          `Section ${section.name} (${section.size_bytes} bytes) holds initialized data but has no load_region; its initial values ` +
            `are normally stored in flash too and copied at startup. Set load_region (usually FLASH), or the flash usage is understated by ${section.size_bytes} bytes.`,
        ),
      );
    }
  }
  return { placed, findings };
}

function contributors(sections: RegionSection[]): string {
  return [...sections]
    .filter((s) => s.size_bytes > 0)
    .sort((a, b) => b.size_bytes - a.size_bytes || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, 3)
    .map((s) => `${s.name}${s.placement === 'load' ? ' (load image)' : ''} ${s.size_bytes} B`)
    .join(', ');
}

/** Usage of one region and the finding it raises, if any. */
export function evaluateRegion(
  region: MemoryRegion,
  sections: RegionSection[],
  defaultMarginPercent: number,
): { usage: RegionUsage; finding: BudgetFinding | null } {
  const length = region.length_bytes;
  const used = sections.reduce((sum, s) => sum + s.size_bytes, 0);
  const free = length - used;
  const marginPercent = region.min_free_percent ?? defaultMarginPercent;
  const requiredFree = Math.ceil((marginPercent * length) / 100 - 1e-9);
  const headroom = free - requiredFree;
  const status: RegionUsage['status'] = used > length ? 'over_budget' : headroom < 0 ? 'below_margin' : 'ok';
  const usage: RegionUsage = {
    name: region.name,
    origin_hex: hex(toAddress(region.origin)),
    length_bytes: length,
    used_bytes: used,
    free_bytes: free,
    used_percent: round2((used / length) * 100),
    free_percent: round2((free / length) * 100),
    required_free_percent: marginPercent,
    required_free_bytes: requiredFree,
    headroom_bytes: headroom,
    status,
    sections,
  };
  const top = contributors(sections);
  if (status === 'over_budget') {
    return {
      usage,
      finding: finding(
        'error',
        'over_budget',
        region.name,
        null,
        `${region.name} overflows by ${-free} bytes: ${used} of ${length} bytes used (${usage.used_percent} %). ` +
          `Largest contributors: ${top}. Cut ${-headroom} bytes to also restore the ${marginPercent} % margin.`,
      ),
    };
  }
  if (status === 'below_margin') {
    return {
      usage,
      finding: finding(
        'error',
        'below_margin',
        region.name,
        null,
        `${region.name} has ${free} bytes free (${usage.free_percent} %), below the required ${marginPercent} % margin ` +
          `(${requiredFree} bytes): cut ${-headroom} bytes. Largest contributors: ${top}.`,
      ),
    };
  }
  return { usage, finding: null };
}

const SEVERITY_ORDER = { error: 0, warning: 1 } as const;

function compareText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

/** Errors first, then region (null last), section, code. */
export function sortFindings(findings: BudgetFinding[]): BudgetFinding[] {
  return [...findings].sort(
    (a, b) =>
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      compareText(a.region, b.region) ||
      compareText(a.section, b.section) ||
      compareText(a.code, b.code),
  );
}

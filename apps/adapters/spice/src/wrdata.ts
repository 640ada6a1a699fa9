import type { AnalysisResult, SpiceAnalysis } from './schema.js';

/** Floor of magnitude_db, so an exact zero stays a JSON number. */
const MIN_DB = -400;

const SCALE_OF: Record<SpiceAnalysis['type'], (name: string) => boolean> = {
  op: () => true,
  dc: (name) => name.endsWith('-sweep') || name === 'temp',
  ac: (name) => name === 'frequency',
  tran: (name) => name === 'time',
};

/**
 * Parse a `wrdata` file written with `wr_vecnames` and `wr_singlescale`: a header line, then one row per point
 * with the scale and each vector (two columns, real and imaginary, for AC). Returns null when the file does not
 * belong to this analysis (its scale is not the one the analysis produces).
 */
export function parseWrdata(text: string, analysis: SpiceAnalysis, vectors: readonly string[]): AnalysisResult | null {
  const lines = text.split(/\r?\n/).filter((line) => line.trim().length > 0);
  if (lines.length < 2) return null;
  const header = lines[0].trim().split(/\s+/);
  const scaleName = header[0].toLowerCase();
  if (!SCALE_OF[analysis.type](scaleName)) return null;
  const complex = analysis.type === 'ac';
  const width = 1 + vectors.length * (complex ? 2 : 1);
  const rows = lines.slice(1).map((line) => line.trim().split(/\s+/).map(Number));
  if (rows.some((row) => row.length !== width || row.some((value) => Number.isNaN(value)))) return null;

  const result: AnalysisResult = {
    type: analysis.type,
    scale: analysis.type === 'op' ? null : { name: scaleName, unit: unitOf(scaleName), values: rows.map((row) => row[0]) },
    points: rows.length,
    vectors: {},
    complex_vectors: {},
  };
  vectors.forEach((vector, index) => {
    if (!complex) {
      result.vectors[vector] = rows.map((row) => row[1 + index]);
      return;
    }
    const real = rows.map((row) => row[1 + 2 * index]);
    const imag = rows.map((row) => row[2 + 2 * index]);
    const magnitude = real.map((re, i) => Math.hypot(re, imag[i]));
    result.complex_vectors[vector] = {
      real,
      imag,
      magnitude,
      magnitude_db: magnitude.map((value) => Math.max(20 * Math.log10(value), MIN_DB)),
      phase_deg: real.map((re, i) => (Math.atan2(imag[i], re) * 180) / Math.PI),
    };
  });
  return result;
}

function unitOf(scaleName: string): string {
  if (scaleName === 'time') return 's';
  if (scaleName === 'frequency') return 'Hz';
  if (scaleName === 'v-sweep') return 'V';
  if (scaleName === 'i-sweep') return 'A';
  if (scaleName === 'temp-sweep' || scaleName === 'temp') return '°C';
  if (scaleName === 'res-sweep') return 'Ω';
  return '';
}

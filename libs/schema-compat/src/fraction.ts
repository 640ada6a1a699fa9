/** A finite number as an exact decimal: `digits / 10^scale`. */
interface Decimal {
  readonly digits: bigint;
  readonly scale: number;
}

function toDecimal(value: number): Decimal {
  const [mantissa, exponentText] = Math.abs(value).toString().split('e');
  const exponent = Number(exponentText ?? 0);
  const [whole, fraction = ''] = mantissa.split('.');
  const scale = fraction.length - exponent;
  const digits = BigInt(whole + fraction);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

/** True when `value` is an exact whole multiple of `divisor` (decimal arithmetic, no float error). */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (divisor === 0 || !Number.isFinite(value) || !Number.isFinite(divisor)) return false;
  const left = toDecimal(value);
  const right = toDecimal(divisor);
  const scale = Math.max(left.scale, right.scale);
  const scaledLeft = left.digits * 10n ** BigInt(scale - left.scale);
  const scaledRight = right.digits * 10n ** BigInt(scale - right.scale);
  return scaledRight !== 0n && scaledLeft % scaledRight === 0n;
}

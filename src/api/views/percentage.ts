/**
 * Percentages computed as Blockscout computes them, so that the floats match to the last digit:
 * Elixir's Decimal divides to 28 significant digits (rounding half up), and only the final result
 * becomes a float. Plain float division (a / b * 100) often lands one unit in the last place away.
 */

const precision = 28;

interface Decimal {
  coefficient: bigint;
  exponent: number;
}

const digits = (n: bigint): number => (n === 0n ? 1 : n.toString().length);
const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** numerator / denominator for non-negative numerator and positive denominator. */
function divide(numerator: bigint, denominator: bigint): Decimal {
  if (numerator === 0n) return { coefficient: 0n, exponent: 0 };
  let shift = precision - (digits(numerator) - digits(denominator));
  for (;;) {
    const scaled = shift >= 0 ? numerator * pow10(shift) : numerator;
    const divisor = shift >= 0 ? denominator : denominator * pow10(-shift);
    const quotient = scaled / divisor;
    const quotientDigits = digits(quotient);
    if (quotientDigits > precision) {
      shift -= quotientDigits - precision;
      continue;
    }
    if (quotientDigits < precision) {
      shift += precision - quotientDigits;
      continue;
    }
    const remainder = scaled % divisor;
    return { coefficient: 2n * remainder >= divisor ? quotient + 1n : quotient, exponent: -shift };
  }
}

function minusOne({ coefficient, exponent }: Decimal): Decimal {
  return exponent <= 0
    ? { coefficient: coefficient - pow10(-exponent), exponent }
    : { coefficient: coefficient * pow10(exponent) - 1n, exponent: 0 };
}

const asPercentFloat = ({ coefficient, exponent }: Decimal): number => Number(`${coefficient}e${exponent + 2}`);

/** part / whole × 100; whole must be positive. */
export const percentage = (part: bigint, whole: bigint): number => asPercentFloat(divide(part, whole));

/** How far used is above (positive) or below (negative) target = limit / elasticity, in percent of the target. */
export const percentageAboveTarget = (used: bigint, limit: bigint, elasticity: bigint): number =>
  asPercentFloat(minusOne(divide(used * elasticity, limit)));

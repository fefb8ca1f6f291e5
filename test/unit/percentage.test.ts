import { test } from 'node:test';
import assert from 'node:assert/strict';
import { percentage, percentageAboveTarget } from '../../src/api/views/percentage.js';

// Blockscout divides with Elixir's Decimal, to 28 significant digits rounded half up, and makes a float
// of the result only at the end. Each expectation below is that decimal worked out by hand, written as
// a literal and read by Number: the float the API must print.

test('exact quotients', () => {
  assert.equal(percentage(0n, 5n), 0);
  assert.equal(percentage(15_000_000n, 30_000_000n), 50);
  assert.equal(percentage(3n, 3n), 100);
  assert.equal(percentage(5n, 2n), 250);
  // 21,000 gas of a 30,000,000 limit is 0.0007 exactly; float division gives 0.06999999999999999.
  assert.equal(percentage(21_000n, 30_000_000n), Number('0.07'));
  assert.notEqual(percentage(21_000n, 30_000_000n), (21_000 / 30_000_000) * 100);
});

test('repeating quotients are cut at 28 significant digits, the last rounded half up, before becoming floats', () => {
  // 1/3 = 0.3333333333333333333333333333 (28 threes) → 33.33333333333333333333333333
  assert.equal(percentage(1n, 3n), Number('33.33333333333333333333333333'));
  assert.equal(percentage(1n, 3n), 33.333333333333336);
  assert.notEqual(percentage(1n, 3n), (1 / 3) * 100, 'plain float division is one unit in the last place away');
  // 2/3 = 0.6666666666666666666666666667 (27 sixes, then 7 rounded up) → 66.66666666666666666666666667
  assert.equal(percentage(2n, 3n), Number('66.66666666666666666666666667'));
  assert.equal(percentage(2n, 3n), 66.66666666666667);
  // Large operands give the same digits.
  assert.equal(percentage(10n ** 30n, 3n * 10n ** 30n), Number('33.33333333333333333333333333'));
});

test('a numerator with more digits than the precision is rounded at the 28th', () => {
  // 0.123456789012345678901234567890123 → 0.1234567890123456789012345679 (the 29th digit, 9, rounds up)
  assert.equal(percentage(123456789012345678901234567890123n, 10n ** 33n), Number('12.34567890123456789012345679'));
  // 10^40 / 7 = 1428571428571428571428571428|571.4… → 1428571428571428571428571429 × 10^12, × 100
  assert.equal(percentage(10n ** 40n, 7n), Number('1428571428571428571428571429e14'));
});

// Where the 28 digits show in the float: just above 9007199254740993, the midpoint between the doubles
// 2^53 = 9007199254740992 and 2^53 + 2. A decimal on the midpoint becomes the even one, 2^53; anything
// above it becomes 2^53 + 2.
const evenDouble = 9_007_199_254_740_992;
const oddDouble = 9_007_199_254_740_994;

test('the 28th digit rounds half up, and that is what tips a midpoint', () => {
  assert.equal(Number('9007199254740993'), evenDouble);
  // 90071992547409930000000000005 / 10^15: 29 digits, the 29th a 5 → 9007199254740993000000000001 × 10^-14,
  // so 9007199254740993.000000000001 percent, above the midpoint. Truncating, or rounding half to even,
  // or keeping 27 digits would land on it.
  assert.equal(percentage(90071992547409930000000000005n, 10n ** 15n), Number('9007199254740993.000000000001'));
  assert.equal(percentage(90071992547409930000000000005n, 10n ** 15n), oddDouble);
  // The 29th digit a 6: 28 digits round up (above the midpoint); 27 would round down (on it).
  assert.equal(percentage(90071992547409930000000000006n, 10n ** 15n), oddDouble);
});

test('digits past the 28th are dropped, even when they would tip a midpoint', () => {
  // 900719925474099300000000000049 / 10^16 = 90071992547409.9300000000000049: the 29th digit a 4, so
  // 9007199254740993.000000000000 percent, on the midpoint; the exact value lies above it.
  assert.equal(percentage(900719925474099300000000000049n, 10n ** 16n), evenDouble);
});

test('gas above or below the target, in percent of the target (limit / elasticity)', () => {
  const limit = 30_000_000n;
  // Target 15,000,000: at the target 0, an empty block -100, a full one +100.
  assert.equal(percentageAboveTarget(15_000_000n, limit, 2n), 0);
  assert.ok(Object.is(percentageAboveTarget(15_000_000n, limit, 2n), 0), 'zero, not minus zero');
  assert.equal(percentageAboveTarget(0n, limit, 2n), -100);
  assert.equal(percentageAboveTarget(limit, limit, 2n), 100);
  // 20,000,000 × 2 / 30,000,000 = 1.333333333333333333333333333 (28 digits); minus one, 0.333333333333333333333333333
  assert.equal(percentageAboveTarget(20_000_000n, limit, 2n), Number('33.3333333333333333333333333'));
  // 10,000,000 × 2 / 30,000,000 = 0.6666666666666666666666666667; minus one, -0.3333333333333333333333333333
  assert.equal(percentageAboveTarget(10_000_000n, limit, 2n), Number('-33.33333333333333333333333333'));
  // 21,000 × 2 / 30,000,000 = 0.0014; minus one, -0.9986
  assert.equal(percentageAboveTarget(21_000n, limit, 2n), Number('-99.86'));
});

test('a quotient too large for 28 digits after the point loses its fraction before one is taken off', () => {
  // 10^40 / 7 → 1428571428571428571428571429 × 10^12; minus one, 1428571428571428571428571428999999999999
  assert.equal(percentageAboveTarget(10n ** 40n, 7n, 1n), Number('1428571428571428571428571428999999999999e2'));
});

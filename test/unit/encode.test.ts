import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hexFromBytea,
  byteaArrayCell,
  byteaCell,
  byteaFromHex,
  numericCell,
  nullableByteaCell,
  timestampCell,
} from '../../src/store/encode.js';

// Values as PostgreSQL reads them in COPY CSV input (src/store/encode.ts).

test('bytea in hex format: a backslash, x, the digits', () => {
  assert.equal(byteaCell('0x00ff10'), String.raw`\x00ff10`);
  assert.equal(byteaCell('0x'), String.raw`\x`, 'empty input data');
  assert.equal(nullableByteaCell(null), null);
  assert.equal(nullableByteaCell('0xab'), String.raw`\xab`);
});

test('a bytea array literal escapes the backslash of each element', () => {
  assert.equal(byteaArrayCell(['0x01', '0xabcd']), String.raw`{\\x01,\\xabcd}`);
  assert.equal(byteaArrayCell([]), '{}');
});

test('numbers in decimal, whatever their size; null stays null', () => {
  assert.equal(numericCell(2n ** 256n - 1n), '115792089237316195423570985008687907853269984665640564039457584007913129639935');
  assert.equal(numericCell(0n), '0');
  assert.equal(numericCell(21_000), '21000');
  assert.equal(numericCell(null), null);
});

test('block timestamps as UTC ISO 8601', () => {
  assert.equal(timestampCell(0n), '1970-01-01T00:00:00.000Z');
  assert.equal(timestampCell(31_536_000n), '1971-01-01T00:00:00.000Z', '365 days of 86,400 s');
  assert.equal(timestampCell(946_684_800n), '2000-01-01T00:00:00.000Z');
});

test('hex and buffers convert both ways, lowercase', () => {
  assert.deepEqual([...byteaFromHex('0x00FFa0')], [0x00, 0xff, 0xa0]);
  assert.equal(hexFromBytea(Buffer.from([0x00, 0xff, 0xa0])), '0x00ffa0');
  assert.equal(hexFromBytea(Buffer.alloc(0)), '0x');
});

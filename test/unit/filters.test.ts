import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidParametersError, invalidValueDetail } from '../../src/api/errors.js';
import { parseAllowedList, parseChoice, parseCommaList, requireValid } from '../../src/api/filters.js';
import { parseTokenTypes, tokenTypes } from '../../src/api/token-types.js';

// Filter parameters as clients send them (src/api/filters.ts, src/api/token-types.ts): a value or a
// comma-separated list, empty meaning no filter, anything outside the allowed set a 422 naming the parameter.

const directions = ['to', 'from'] as const;

test('a choice: absent or empty gives the default, an allowed value itself, anything else names the parameter', () => {
  assert.deepEqual(parseChoice('filter', undefined, directions, 'to'), { ok: true, value: 'to' });
  assert.deepEqual(parseChoice('filter', '', directions, 'from'), { ok: true, value: 'from' });
  assert.deepEqual(parseChoice('filter', 'from', directions, 'to'), { ok: true, value: 'from' });
  assert.deepEqual(parseChoice('filter', 'From', directions, 'to'), {
    ok: false,
    invalid: { param: 'filter', detail: 'Expected one of to, from; got "From".' },
  });
  assert.deepEqual(parseChoice('filter', 'to,from', directions, 'to'), {
    ok: false,
    invalid: { param: 'filter', detail: 'Expected one of to, from; got "to,from".' },
  });
});

test('a comma-separated list: items trimmed, empty items skipped, duplicates dropped, first-seen order kept', () => {
  const digits = (item: string) => (/^[0-9]+$/.test(item) ? Number(item) : undefined);
  assert.deepEqual(parseCommaList('n', undefined, digits, 'numbers'), { ok: true, value: [] });
  assert.deepEqual(parseCommaList('n', '', digits, 'numbers'), { ok: true, value: [] });
  assert.deepEqual(parseCommaList('n', ' , ,', digits, 'numbers'), { ok: true, value: [] });
  assert.deepEqual(parseCommaList('n', ' 3, 1,,3 ,2,1', digits, 'numbers'), { ok: true, value: [3, 1, 2] });
});

test('a list with one item not allowed names that item, trimmed, and the parameter', () => {
  const digits = (item: string) => (/^[0-9]+$/.test(item) ? Number(item) : undefined);
  assert.deepEqual(parseCommaList('n', '1, x2 ,3', digits, 'numbers'), {
    ok: false,
    invalid: { param: 'n', detail: 'Expected a comma-separated list of numbers; got "x2".' },
  });
});

test('a list of allowed values is case-sensitive and names the allowed set', () => {
  const methods = ['approve', 'transfer'] as const;
  assert.deepEqual(parseAllowedList('method', 'transfer,approve,transfer', methods), { ok: true, value: ['transfer', 'approve'] });
  assert.deepEqual(parseAllowedList('method', 'Transfer', methods), {
    ok: false,
    invalid: { param: 'method', detail: 'Expected a comma-separated list of approve, transfer; got "Transfer".' },
  });
});

test('token types as Blockscout reads them: any case, in brackets or not', () => {
  assert.deepEqual(tokenTypes, ['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404']);
  assert.deepEqual(parseTokenTypes(undefined, tokenTypes), { ok: true, value: [] });
  assert.deepEqual(parseTokenTypes('[]', tokenTypes), { ok: true, value: [] });
  assert.deepEqual(parseTokenTypes('erc-721,ERC-20', tokenTypes), { ok: true, value: ['ERC-721', 'ERC-20'] });
  assert.deepEqual(parseTokenTypes('[erc-1155, Erc-404]', tokenTypes), { ok: true, value: ['ERC-1155', 'ERC-404'] });
  // The NFT lists allow the NFT types only.
  assert.deepEqual(parseTokenTypes('ERC-20', ['ERC-721', 'ERC-1155'] as const), {
    ok: false,
    invalid: { param: 'type', detail: 'Expected a comma-separated list of ERC-721, ERC-1155; got "ERC-20".' },
  });
  // Only one pair of brackets around the whole list is taken off.
  assert.deepEqual(parseTokenTypes('[ERC-20],[ERC-721]', tokenTypes), {
    ok: false,
    invalid: { param: 'type', detail: 'Expected a comma-separated list of ERC-20, ERC-721, ERC-1155, ERC-404; got "ERC-20]".' },
  });
});

test('requireValid gives the values when all parsed, else one 422 naming every parameter that failed, in order', () => {
  assert.deepEqual(
    requireValid({
      filter: parseChoice('filter', 'from', directions, 'to'),
      type: parseTokenTypes('erc-20', tokenTypes),
    }),
    { filter: 'from', type: ['ERC-20'] },
  );
  assert.throws(
    () =>
      requireValid({
        filter: parseChoice('filter', 'sideways', directions, 'to'),
        type: parseTokenTypes('ERC-20', tokenTypes),
        token: parseChoice('token', 'x', ['y'], 'y'),
      }),
    (error: unknown) => {
      assert.ok(error instanceof InvalidParametersError, `expected an InvalidParametersError, got ${String(error)}`);
      assert.deepEqual(error.invalid, [
        { param: 'filter', detail: 'Expected one of to, from; got "sideways".' },
        { param: 'token', detail: 'Expected one of y; got "x".' },
      ]);
      assert.equal(error.message, 'filter: Expected one of to, from; got "sideways".; token: Expected one of y; got "x".');
      return true;
    },
  );
});

test('a 422 detail quotes the value received, cut at 80 characters', () => {
  assert.equal(invalidValueDetail('a number', undefined), 'Expected a number.');
  assert.equal(invalidValueDetail('a number', 'x'.repeat(80)), `Expected a number; got "${'x'.repeat(80)}".`);
  assert.equal(invalidValueDetail('a number', 'x'.repeat(81)), `Expected a number; got "${'x'.repeat(80)}…".`);
  assert.equal(invalidValueDetail('a number', { a: [1] }), 'Expected a number; got "{"a":[1]}".');
  assert.equal(invalidValueDetail('a number', null), 'Expected a number; got "null".');
});

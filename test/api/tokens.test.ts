import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { decodeFunctionResult, encodeFunctionData, getAddress, parseAbi, type Address, type Hex } from 'viem';
import { startNftMetadataStage } from '../../src/indexer/stages/nft-metadata-stage.js';
import { startTokenMetadataStage } from '../../src/indexer/stages/token-metadata-stage.js';
import { type TestDatabase, bytea, createTestDatabase } from '../support/database.js';
import { expectedAddressInfo } from '../support/expected-json.js';
import { type NodeTransfer, type TokenChain, batchIds, indexTokenChain, repeatedId, startTokenChain } from '../support/token-chain.js';
import { waitFor } from '../support/wait.js';
import { type RunningApi, assertFullPages, collectList, queryString, startApi } from './http.js';

let chain: TokenChain;
let db: TestDatabase;
let api: RunningApi;
const successor = 'https://successor.example/tokens/{address_hash}/instances/{id}/transfers';

before(async () => {
  chain = await startTokenChain();
  db = await createTestDatabase();
  await indexTokenChain(chain, db);
  api = await startApi(db.pool, { instanceTransfersSuccessorUrl: successor });
});
after(async () => {
  await api?.close();
  await db?.drop();
  await chain?.anvil.stop();
});

const zero: Address = '0x0000000000000000000000000000000000000000';
const newestFirst = (a: NodeTransfer, b: NodeTransfer) =>
  b.blockNumber - a.blockNumber || b.logIndex - a.logIndex || b.batchIndex - a.batchIndex;
const keyOfTransfer = (t: NodeTransfer) => `${t.blockNumber}:${t.logIndex}:${t.tokenId ?? ''}:${t.value}`;
const keyOfItem = (item: any) => `${item.block_number}:${item.log_index}:${item.total?.token_id ?? ''}:${item.total?.value ?? 1}`;

function expectedForAddress(address: Address, filter: string, types: string[], token: Address | null): string[] {
  return chain.transfers
    .filter((t) => (filter === 'to' ? t.to === address : filter === 'from' ? t.from === address : t.to === address || t.from === address))
    .filter((t) => types.length === 0 || types.includes(t.type))
    .filter((t) => token === null || t.token === token)
    .sort(newestFirst)
    .map(keyOfTransfer);
}

test('E8: every filter, type and token value, paged through ERC-1155 batches without losing or repeating an item', async () => {
  const { alice, bob, carol, dave, deployer } = chain.scenario.accounts;
  const { erc20, erc1155 } = chain.scenario.contracts;
  const typeValues = ['', 'ERC-20', 'ERC-721', 'ERC-1155', 'erc-20,ERC-1155', '[ERC-721]'];
  let crossedBatch = false;
  for (const address of [alice, bob, carol, dave, deployer].map((a) => a.toLowerCase() as Address)) {
    for (const filter of ['', 'to', 'from']) {
      for (const type of typeValues) {
        for (const token of [null, erc1155.toLowerCase() as Address]) {
          const types = type
            .replace(/[[\]]/g, '')
            .split(',')
            .filter(Boolean)
            .map((t) => t.toUpperCase());
          const query: Record<string, string> = { filter, type, ...(token === null ? {} : { token }) };
          const list = await collectList(api, `/api/v2/addresses/${address}/token-transfers`, query);
          const label = `${address} ${JSON.stringify(query)}`;
          assert.deepEqual(list.items.map(keyOfItem), expectedForAddress(address, filter, types, token), label);
          assertFullPages(list);
          for (const params of list.nextPageParams) {
            assert.deepEqual(Object.keys(params), ['batch_index', 'block_number', 'index']);
            if ((params.batch_index as number) > 0) crossedBatch = true;
          }
        }
      }
    }
  }
  assert.ok(crossedBatch, 'some page ends inside an ERC-1155 batch');
  const dave60 = await collectList(api, `/api/v2/addresses/${dave}/token-transfers`, { token: erc1155, filter: 'to' });
  assert.ok(dave60.items.length >= batchIds.length, `${dave60.items.length} transfers to ${dave}, at least ${batchIds.length}`);
  assert.equal(new Set(dave60.items.map(keyOfItem)).size, dave60.items.length);
  // An unknown address, or a token with no transfers, is an empty list.
  const unknown = await api.get(`/api/v2/addresses/0x${'ab'.repeat(20)}/token-transfers?token=${erc20}`);
  assert.deepEqual(unknown.body, { items: [], next_page_params: null });
});

test('E8: an ERC-20 mint, an ERC-721 transfer and an ERC-1155 batch item render as Blockscout renders them', async () => {
  const { alice, bob } = chain.scenario.accounts;
  const { erc20, erc721, erc1155 } = chain.scenario.contracts;
  const { items } = await collectList(api, `/api/v2/addresses/${alice}/token-transfers`);
  const mint = items.find((i) => i.token.address_hash === getAddress(erc20) && i.from.hash === zero)!;
  assert.equal(mint.type, 'token_minting');
  assert.equal(mint.method, 'mint');
  assert.deepEqual(mint.total, { decimals: null, value: (10n ** 24n).toString() });
  assert.deepEqual(mint.from, expectedAddressInfo(zero));
  assert.deepEqual(mint.to, expectedAddressInfo(getAddress(alice)));
  assert.match(mint.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.match(mint.transaction_hash, /^0x[0-9a-f]{64}$/);
  assert.deepEqual(
    { ...mint.token, holders_count: undefined },
    {
      address_hash: getAddress(erc20),
      circulating_market_cap: null,
      circulating_supply: null,
      decimals: null,
      exchange_rate: null,
      holders_count: undefined,
      icon_url: null,
      name: null,
      reputation: 'ok',
      symbol: null,
      total_supply: null,
      type: 'ERC-20',
      volume_24h: null,
    },
  );

  const nft = items.find((i) => i.token.address_hash === getAddress(erc721) && i.to.hash === getAddress(bob))!;
  assert.equal(nft.type, 'token_transfer');
  assert.equal(nft.token_type, 'ERC-721');
  assert.deepEqual(Object.keys(nft.total), ['token_id', 'token_instance']);
  assert.equal(nft.total.token_id, '1');
  assert.equal(nft.total.token_instance.id, '1');
  assert.equal(nft.total.token_instance.token.address_hash, getAddress(erc721));

  const batchItem = items.find(
    (i) => i.token.address_hash === getAddress(erc1155) && i.total.token_id === '3' && i.to.hash === getAddress(bob),
  )!;
  assert.deepEqual(
    { decimals: batchItem.total.decimals, token_id: batchItem.total.token_id, value: batchItem.total.value },
    { decimals: null, token_id: '3', value: '5' },
  );
  assert.equal(batchItem.method, '0x2eb2c2d6');
});

/**
 * The node's transfers of one NFT id, newest first, as E4 lists them: the entries of one batch that
 * list the id more than once are one, with their amounts summed, at the first entry's position.
 */
function instanceTransfers(token: Address, id: bigint): NodeTransfer[] {
  const squashed = new Map<string, NodeTransfer>();
  for (const t of chain.transfers.filter((t) => t.token === token.toLowerCase() && t.tokenId === id)) {
    const key = `${t.blockNumber}:${t.logIndex}`;
    const seen = squashed.get(key);
    squashed.set(
      key,
      seen === undefined ? t : { ...seen, batchIndex: Math.min(seen.batchIndex, t.batchIndex), value: seen.value + t.value },
    );
  }
  return [...squashed.values()].sort(newestFirst);
}

test('E4: the transfers of one NFT, its deprecation headers, and 404s for unknown and fungible tokens', async () => {
  const { erc20, erc721, erc1155 } = chain.scenario.contracts;
  const instancePath = (token: string, id: string) => `/api/v2/tokens/${token}/instances/${id}/transfers`;
  for (const [token, id] of [
    [erc721, 1n],
    [erc721, 3n],
    [erc1155, 2n],
    [erc1155, 130n],
    [erc1155, repeatedId],
  ] as const) {
    const expected = instanceTransfers(token, id).map(keyOfTransfer);
    const response = await api.get(instancePath(token, id.toString()));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('deprecation'), '@1767225600');
    assert.equal(
      response.headers.get('link'),
      `<https://successor.example/tokens/${token.toLowerCase()}/instances/${id}/transfers>; rel="successor-version"`,
    );
    assert.deepEqual(response.body.items.map(keyOfItem), expected);
    assert.equal(response.body.next_page_params, null);
  }
  const burn = (await api.get(instancePath(erc721, '3'))).body.items[0];
  assert.equal(burn.type, 'token_burning');

  for (const path of [instancePath(erc20, '1'), instancePath(`0x${'cd'.repeat(20)}`, '1')]) {
    const response = await api.get(path);
    assert.equal(response.status, 404, path);
    assert.deepEqual(response.body, { message: 'Not found' });
  }
  const unknownId = await api.get(instancePath(erc721, '999'));
  assert.deepEqual(unknownId.body, { items: [], next_page_params: null });
});

test('E4: pages through a long history with its keyset, token_id included', async () => {
  const { erc1155 } = chain.scenario.contracts;
  // Two transfers only; a page boundary is made by starting below the newest one.
  const first = (await api.get(`/api/v2/tokens/${erc1155}/instances/130/transfers`)).body.items;
  assert.equal(first.length, 2);
  const rest = await api.get(
    `/api/v2/tokens/${erc1155}/instances/130/transfers${queryString({
      block_number: first[0].block_number,
      index: first[0].log_index,
      batch_index: 30,
      token_id: '130',
    })}`,
  );
  assert.deepEqual(rest.body.items.map(keyOfItem), [keyOfItem(first[1])]);
});

test('E4: entries of one ERC-1155 batch that list the id twice are one item with the summed amount, paged by its key', async () => {
  const { erc1155 } = chain.scenario.contracts;
  const { carol, dave } = chain.scenario.accounts;
  const entries = chain.transfers.filter((t) => t.token === erc1155.toLowerCase() && t.tokenId === repeatedId);
  assert.equal(entries.length, 4, 'two batches, each listing the id twice');
  const path = `/api/v2/tokens/${erc1155}/instances/${repeatedId}/transfers`;
  const { items } = (await api.get(path)).body;
  assert.deepEqual(
    items.map((i: any) => [i.type, i.from.hash, i.to.hash, i.total.value]),
    [
      ['token_transfer', getAddress(carol), getAddress(dave), '6'],
      ['token_minting', zero, getAddress(carol), '6'],
    ],
  );
  // Paging from the squashed send gives the mint alone, and from the mint nothing.
  const key = (item: any) => {
    const entry = instanceTransfers(erc1155, repeatedId).find((t) => t.blockNumber === item.block_number && t.logIndex === item.log_index)!;
    return { block_number: item.block_number, index: item.log_index, batch_index: entry.batchIndex, token_id: String(repeatedId) };
  };
  const second = (await api.get(`${path}${queryString(key(items[0]))}`)).body;
  assert.deepEqual(second.items.map(keyOfItem), [keyOfItem(items[1])]);
  const third = (await api.get(`${path}${queryString(key(items[1]))}`)).body;
  assert.deepEqual(third, { items: [], next_page_params: null });
});

test('422s name the parameter: type, filter, token, paging members, token id and address', async () => {
  const { alice } = chain.scenario.accounts;
  const { erc721 } = chain.scenario.contracts;
  const cases: [string, string][] = [
    [`/api/v2/addresses/${alice}/token-transfers?type=ERC-777`, 'type'],
    [`/api/v2/addresses/${alice}/token-transfers?filter=both`, 'filter'],
    [`/api/v2/addresses/${alice}/token-transfers?token=0x12`, 'token'],
    [`/api/v2/addresses/${alice}/token-transfers?block_number=5&index=1`, 'batch_index'],
    [`/api/v2/addresses/${alice}/token-transfers?block_number=x&index=1&batch_index=0`, 'block_number'],
    [`/api/v2/addresses/0x123/token-transfers`, 'address_hash'],
    [`/api/v2/tokens/${erc721}/instances/abc/transfers`, 'id'],
    [`/api/v2/tokens/${erc721}/instances/-1/transfers`, 'id'],
    [`/api/v2/tokens/0xzz/instances/1/transfers`, 'address_hash'],
    [`/api/v2/tokens/${erc721}/instances/1/transfers?block_number=1&index=0&batch_index=0`, 'token_id'],
  ];
  for (const [path, param] of cases) {
    const response = await api.get(path);
    assert.equal(response.status, 422, path);
    assert.ok(
      response.body.errors.some((e: any) => e.source.pointer === `/${param}`),
      `${path}: ${response.text}`,
    );
  }
});

const balanceAbi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function balanceOf(address, uint256) view returns (uint256)',
]);

async function call(to: Address, data: Hex): Promise<bigint> {
  return BigInt(await chain.client.request<Hex>('eth_call', [{ to, data }, 'latest']));
}

test('balances and holders_count agree with balanceOf on the node', async () => {
  const { erc20, erc721, erc1155 } = chain.scenario.contracts;
  const holders = [...new Set(chain.transfers.flatMap((t) => [t.from, t.to]))].filter((a) => a !== zero);
  const ids = [...new Set(chain.transfers.filter((t) => t.type === 'ERC-1155').map((t) => t.tokenId!))];
  const stored = async (holder: Address, token: Address, id: bigint | null) => {
    const { rows } = await db.pool.query<{ value: string }>(
      'SELECT value::text FROM address_token_balances WHERE address = $1 AND token_address = $2 AND token_id IS NOT DISTINCT FROM $3',
      [bytea(holder), bytea(token), id?.toString() ?? null],
    );
    return BigInt(rows[0]?.value ?? '0');
  };
  const holdersCount = async (token: Address) =>
    BigInt(
      (await db.pool.query<{ n: string }>('SELECT holders_count::text AS n FROM tokens WHERE address = $1', [bytea(token)])).rows[0]!.n,
    );

  for (const token of [erc20, erc721]) {
    let positive = 0n;
    for (const holder of holders) {
      const onChain = await call(token, encodeFunctionData({ abi: balanceAbi, functionName: 'balanceOf', args: [holder] }));
      assert.equal(await stored(holder, token, null), onChain, `${token} ${holder}`);
      if (onChain > 0n) positive++;
    }
    assert.equal(await holdersCount(token), positive, token);
  }
  const holding = new Set<Address>();
  for (const holder of holders) {
    for (const id of ids) {
      const onChain = await call(erc1155, encodeFunctionData({ abi: balanceAbi, functionName: 'balanceOf', args: [holder, id] }));
      assert.equal(await stored(holder, erc1155, id), onChain, `${holder} id ${id}`);
      if (onChain > 0n) holding.add(holder);
    }
  }
  assert.equal(await holdersCount(erc1155), BigInt(holding.size));
});

/** Balances from the node's transfers, per holder, token and id (ERC-20 and ERC-721 without an id). */
function expectedBalances(): Map<string, { holder: Address; token: Address; type: string; id: bigint | null; value: bigint }> {
  const balances = new Map<string, { holder: Address; token: Address; type: string; id: bigint | null; value: bigint }>();
  for (const t of chain.transfers) {
    const id = t.type === 'ERC-1155' ? t.tokenId : null;
    for (const [holder, sign] of [
      [t.from, -1n],
      [t.to, 1n],
    ] as const) {
      if (holder === zero) continue;
      const key = `${holder}:${t.token}:${id ?? ''}`;
      const entry = balances.get(key) ?? { holder, token: t.token, type: t.type, id, value: 0n };
      entry.value += sign * t.value;
      balances.set(key, entry);
    }
  }
  return balances;
}

const holdersOfInterest = () => {
  const { alice, bob, carol, dave, deployer } = chain.scenario.accounts;
  return [alice, bob, carol, dave, deployer].map((a) => a.toLowerCase() as Address);
};

/**
 * Checks E1 for every holder of interest and type filter against the node's transfers, with the token
 * names given (by lower-case address): by value, then name (unnamed last), type, token and id, paged
 * without loss or repeats. True if some list has more than one page.
 */
async function assertE1Lists(names: ReadonlyMap<string, string>): Promise<boolean> {
  let paged = false;
  const nameOf = (token: Address) => names.get(token) ?? null;
  const byName = (a: Address, b: Address) => {
    const [x, y] = [nameOf(a), nameOf(b)];
    return x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;
  };
  for (const holder of holdersOfInterest()) {
    for (const type of ['', 'ERC-20', 'ERC-721', 'ERC-1155', 'ERC-721,erc-1155']) {
      const types = type
        .split(',')
        .filter(Boolean)
        .map((t) => t.toUpperCase());
      const expected = [...expectedBalances().values()]
        .filter((b) => b.holder === holder && b.value > 0n && (types.length === 0 || types.includes(b.type)))
        .sort((a, b) =>
          a.value !== b.value
            ? a.value > b.value
              ? -1
              : 1
            : byName(a.token, b.token) ||
              a.type.localeCompare(b.type) ||
              a.token.localeCompare(b.token) ||
              Number((a.id ?? -1n) - (b.id ?? -1n)),
        )
        .map((b) => `${getAddress(b.token)}:${nameOf(b.token)}:${b.id ?? ''}:${b.value}`);
      const list = await collectList(api, `/api/v2/addresses/${holder}/tokens`, { type });
      assert.deepEqual(
        list.items.map((i) => `${i.token.address_hash}:${i.token.name}:${i.token_id ?? ''}:${i.value}`),
        expected,
        `${holder} ${type}`,
      );
      assertFullPages(list);
      if (list.nextPageParams.length > 0) {
        paged = true;
        assert.deepEqual(Object.keys(list.nextPageParams[0]!), [
          'items_count',
          'token_contract_address_hash',
          'token_id',
          'token_name',
          'token_type',
          'value',
        ]);
      }
      if (type !== '') continue;
      // A page may end at any item: the page after each one starts right after it.
      for (const [i, item] of list.items.entries()) {
        const keyset = {
          items_count: 50,
          token_contract_address_hash: item.token.address_hash,
          token_id: item.token_id,
          token_name: item.token.name,
          token_type: item.token.type,
          value: item.value,
        };
        const next = await api.get(`/api/v2/addresses/${holder}/tokens${queryString(keyset)}`);
        assert.deepEqual(
          next.body.items.map((n: any) => `${n.token.address_hash}:${n.token.name}:${n.token_id ?? ''}:${n.value}`),
          expected.slice(i + 1, i + 51),
          `${holder} after item ${i}`,
        );
      }
    }
  }
  return paged;
}

test('E1: positive balances by value, then type and token, every type filter, paged without loss or repeats', async () => {
  assert.ok(await assertE1Lists(new Map()), 'some holder has more than one page');

  const { bob } = chain.scenario.accounts;
  const { erc1155 } = chain.scenario.contracts;
  const { items } = await collectList(api, `/api/v2/addresses/${bob}/tokens`, { type: 'ERC-1155' });
  const id1 = items.find((i) => i.token_id === '1')!;
  assert.equal(id1.token.address_hash, getAddress(erc1155));
  const erc1155Holders = new Set(
    [...expectedBalances().values()].filter((b) => b.token === erc1155.toLowerCase() && b.value > 0n).map((b) => b.holder),
  );
  assert.equal(id1.token.holders_count, String(erc1155Holders.size));
  assert.deepEqual(
    { id: id1.token_instance.id, owner: id1.token_instance.owner, is_unique: id1.token_instance.is_unique },
    { id: '1', owner: null, is_unique: null },
  );
  assert.equal(id1.token_instance.token.address_hash, getAddress(erc1155));
  const erc20 = (await collectList(api, `/api/v2/addresses/${bob}/tokens`, { type: 'ERC-20' })).items[0];
  assert.equal(erc20.token_id, null);
  assert.equal(erc20.token_instance, null);

  const unknown = await api.get(`/api/v2/addresses/0x${'ab'.repeat(20)}/tokens`);
  assert.deepEqual(unknown.body, { items: [], next_page_params: null });
  for (const [query, param] of [
    ['type=ERC-777', 'type'],
    ['value=10', 'token_type'],
    ['value=x&token_name=a&token_type=ERC-20&token_contract_address_hash=0x12&token_id=null', 'value'],
  ]) {
    const response = await api.get(`/api/v2/addresses/${bob}/tokens?${query}`);
    assert.equal(response.status, 422, query);
    assert.ok(
      response.body.errors.some((e: any) => e.source.pointer === `/${param}`),
      `${query}: ${response.text}`,
    );
  }
});

test('E3: ERC-721 then ERC-1155 collections, with amounts and up to 9 previews, every type filter', async () => {
  const { erc721, erc1155 } = chain.scenario.contracts;
  for (const holder of holdersOfInterest()) {
    for (const type of ['', 'ERC-721', 'ERC-1155', 'ERC-404', 'ERC-721,ERC-1155']) {
      const types = type.split(',').filter(Boolean);
      const balances = [...expectedBalances().values()].filter((b) => b.holder === holder && b.value > 0n);
      const expected: string[] = [];
      for (const [token, tokenType] of [
        [erc721, 'ERC-721'],
        [erc1155, 'ERC-1155'],
      ] as const) {
        if (types.length > 0 && !types.includes(tokenType)) continue;
        const held = balances.filter((b) => b.token === token.toLowerCase());
        if (held.length === 0) continue;
        const amount = tokenType === 'ERC-721' ? held[0]!.value : BigInt(held.length);
        const previews =
          tokenType === 'ERC-721'
            ? await ownedIds(holder)
            : held.map((b) => [b.id!, b.value] as const).sort((a, b) => (a[0] > b[0] ? -1 : 1));
        expected.push(
          `${getAddress(token)} ${amount} ${previews
            .slice(0, 9)
            .map(([id, value]) => `${id}=${value}`)
            .join(',')}`,
        );
      }
      const list = await collectList(api, `/api/v2/addresses/${holder}/nft/collections`, { type });
      const got = list.items.map(
        (i) => `${i.token.address_hash} ${i.amount} ${i.token_instances.map((p: any) => `${p.id}=${p.value}`).join(',')}`,
      );
      assert.deepEqual(got, expected, `${holder} ${type}`);
      for (const item of list.items) {
        for (const preview of item.token_instances) {
          assert.equal(preview.token_type, item.token.type);
          assert.equal(preview.token, null);
          assert.equal(preview.owner, null);
        }
      }
    }
  }
  const response = await api.get(`/api/v2/addresses/${chain.scenario.accounts.bob}/nft/collections?type=ERC-20`);
  assert.equal(response.status, 422);
  const partial = await api.get(`/api/v2/addresses/${chain.scenario.accounts.bob}/nft/collections?token_type=ERC-721`);
  assert.equal(partial.status, 422);
  assert.equal(partial.body.errors[0].source.pointer, '/token_contract_address_hash');
});

/** The ERC-721 ids the node says the holder owns, highest first, each with value 1. */
async function ownedIds(holder: Address): Promise<(readonly [bigint, bigint])[]> {
  const { erc721 } = chain.scenario.contracts;
  const ids = [...new Set(chain.transfers.filter((t) => t.token === erc721.toLowerCase()).map((t) => t.tokenId!))];
  const owned: (readonly [bigint, bigint])[] = [];
  for (const id of ids) {
    const ownerOf = await chain.client
      .request<Hex>('eth_call', [
        { to: erc721, data: encodeFunctionData({ abi: ownerAbi, functionName: 'ownerOf', args: [id] }) },
        'latest',
      ])
      .catch(() => null);
    if (ownerOf !== null && `0x${ownerOf.slice(26)}` === holder) owned.push([id, 1n]);
  }
  return owned.sort((a, b) => (a[0] > b[0] ? -1 : 1));
}

const ownerAbi = parseAbi(['function ownerOf(uint256) view returns (address)']);

/** Waits until no row of `rowsLeft` (a table and its WHERE clause) is left, saying how many were at the deadline. */
async function waitForNone(rowsLeft: string, what: string): Promise<void> {
  let left = -1;
  await waitFor(
    async () => {
      left = Number((await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${rowsLeft}`)).rows[0]!.n);
      return left === 0;
    },
    () => `${what} (${left} rows of ${rowsLeft} left)`,
    { intervalMs: 20 },
  );
}

test('the metadata stage reads each token contract once; calls that revert leave nulls', async () => {
  const { erc20, erc721, erc1155 } = chain.scenario.contracts;
  const stage = startTokenMetadataStage({
    pool: db.pool,
    client: chain.client,
    logger: pino({ level: 'silent' }),
    batchSize: 2,
    pollIntervalMs: 20,
  });
  try {
    await waitForNone('tokens WHERE metadata_fetched_at IS NULL', 'every token contract is read');
  } finally {
    await stage.stop();
  }
  const readAbi = parseAbi([
    'function name() view returns (string)',
    'function symbol() view returns (string)',
    'function decimals() view returns (uint8)',
    'function totalSupply() view returns (uint256)',
  ]);
  const read = async (token: Address, functionName: 'name' | 'symbol' | 'decimals' | 'totalSupply') =>
    decodeFunctionResult({
      abi: readAbi,
      functionName,
      data: await chain.client.request<Hex>('eth_call', [
        { to: token, data: encodeFunctionData({ abi: readAbi, functionName }) },
        'latest',
      ]),
    });
  const { items } = await collectList(api, `/api/v2/addresses/${chain.scenario.accounts.alice}/token-transfers`);
  const tokenOf = (address: Address) => items.find((i) => i.token.address_hash === getAddress(address))!.token;
  assert.deepEqual(
    {
      name: tokenOf(erc20).name,
      symbol: tokenOf(erc20).symbol,
      decimals: tokenOf(erc20).decimals,
      total_supply: tokenOf(erc20).total_supply,
    },
    {
      name: await read(erc20, 'name'),
      symbol: await read(erc20, 'symbol'),
      decimals: String(await read(erc20, 'decimals')),
      total_supply: String(await read(erc20, 'totalSupply')),
    },
  );
  assert.deepEqual(
    { name: tokenOf(erc721).name, symbol: tokenOf(erc721).symbol, decimals: tokenOf(erc721).decimals },
    { name: await read(erc721, 'name'), symbol: await read(erc721, 'symbol'), decimals: null },
  );
  // The ERC-1155 contract has none of the four functions: every call reverts.
  assert.deepEqual(
    {
      name: tokenOf(erc1155).name,
      symbol: tokenOf(erc1155).symbol,
      decimals: tokenOf(erc1155).decimals,
      total_supply: tokenOf(erc1155).total_supply,
    },
    { name: null, symbol: null, decimals: null, total_supply: null },
  );
});

test('E1 after the token metadata stage: the names read order the balances, on every page', async () => {
  const { rows } = await db.pool.query<{ address: string; name: string }>(
    "SELECT '0x' || encode(address, 'hex') AS address, name FROM tokens WHERE name IS NOT NULL",
  );
  assert.ok(rows.length >= 2, `the metadata stage named the ERC-20 and ERC-721 tokens: named ${JSON.stringify(rows)}`);
  assert.ok(await assertE1Lists(new Map(rows.map((r) => [r.address, r.name]))), 'some holder has more than one page');
});

test('the NFT metadata stage fetches each id once, from data: URIs, offline', async () => {
  const { erc721, erc1155 } = chain.scenario.contracts;
  const stage = startNftMetadataStage({
    pool: db.pool,
    client: chain.client,
    logger: pino({ level: 'silent' }),
    fetch: { ipfsGateway: 'http://127.0.0.1:9/ipfs', timeoutMs: 1_000, maxBytes: 100_000, retries: 0 },
    batchSize: 16,
    pollIntervalMs: 20,
  });
  try {
    await waitForNone('token_instances WHERE metadata_fetched_at IS NULL', "every NFT id's metadata is fetched");
  } finally {
    await stage.stop();
  }
  const uriAbi = parseAbi(['function tokenURI(uint256) view returns (string)', 'function uri(uint256) view returns (string)']);
  const expectedMetadata = async (token: Address, id: bigint) => {
    const functionName = token === erc721 ? 'tokenURI' : 'uri';
    const data = await chain.client.request<Hex>('eth_call', [
      { to: token, data: encodeFunctionData({ abi: uriAbi, functionName, args: [id] }) },
      'latest',
    ]);
    const uri = decodeFunctionResult({ abi: uriAbi, functionName, data }).replaceAll('{id}', id.toString(16).padStart(64, '0'));
    const [header, body] = [uri.slice(0, uri.indexOf(',')), uri.slice(uri.indexOf(',') + 1)];
    return JSON.parse(header.endsWith(';base64') ? Buffer.from(body, 'base64').toString('utf8') : decodeURIComponent(body));
  };
  const { bob } = chain.scenario.accounts;
  const collections = (await collectList(api, `/api/v2/addresses/${bob}/nft/collections`)).items;
  const previews = collections.flatMap((c) => c.token_instances.map((p: any) => ({ token: c.token.address_hash, preview: p })));
  assert.ok(previews.length >= 3, `${previews.length} NFT previews`);
  for (const { token, preview } of previews) {
    const metadata = await expectedMetadata(token === getAddress(erc721) ? erc721 : erc1155, BigInt(preview.id));
    assert.deepEqual(preview.metadata, metadata, `${token} #${preview.id}`);
    assert.equal(preview.image_url, metadata.image ?? null);
  }
  const transfer = (await api.get(`/api/v2/tokens/${erc721}/instances/1/transfers`)).body.items[0];
  assert.deepEqual(transfer.total.token_instance.metadata, await expectedMetadata(erc721, 1n));
  // Burnt, ERC-721 #3 has no tokenURI any more.
  const { rows } = await db.pool.query<{ id: string; error: string }>(
    'SELECT token_id::text AS id, metadata_error AS error FROM token_instances WHERE metadata IS NULL',
  );
  assert.deepEqual(rows, [{ id: '3', error: 'the contract gives no token URI' }]);
});

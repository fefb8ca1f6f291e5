import type { PoolClient } from 'pg';
import { type Address, type TokenTransferRecord, type TokenType, ZERO_ADDRESS } from '../model.js';
import { byteaFromHex, hexFromBytea, nullableByteaFromHex } from './encode.js';
import { inLockOrder } from './lock-order.js';

/**
 * Keeps what token transfers imply in step with them, inside the writer's transaction: token rows,
 * current balances (deltas aggregated per holder, token and id, each row with its token's type and name
 * for E1's order), holders_count (from the holders that start or stop holding), ERC-721 owners, each
 * NFT id's transfers_count, and the marks that send a token whose supply moved back to the metadata stage. Applied with direction -1 it
 * undoes the same transfers, which is how retracted blocks are reverted.
 */

const byKey = ([a]: [string, unknown], [b]: [string, unknown]): number => inLockOrder(a, b);

/** ERC-20 and ERC-721 balances are one per token (an amount, a count); ERC-1155 and ERC-404 ids have their own. */
const balanceTokenId = (t: TokenTransferRecord): bigint | null =>
  t.tokenType === 'ERC-1155' || t.tokenType === 'ERC-404' ? t.tokenId : null;

interface BalanceDelta {
  holder: Address;
  token: Address;
  tokenId: bigint | null;
  delta: bigint;
}

function balanceDeltas(transfers: readonly TokenTransferRecord[], direction: 1n | -1n): BalanceDelta[] {
  const deltas = new Map<string, BalanceDelta>();
  const add = (holder: Address, t: TokenTransferRecord, delta: bigint) => {
    if (holder === ZERO_ADDRESS) return;
    const tokenId = balanceTokenId(t);
    const key = `${holder}:${t.tokenAddress}:${tokenId ?? ''}`;
    const entry = deltas.get(key) ?? { holder, token: t.tokenAddress, tokenId, delta: 0n };
    entry.delta += delta * direction;
    deltas.set(key, entry);
  };
  for (const t of transfers) {
    add(t.from, t, -t.amount);
    add(t.to, t, t.amount);
  }
  // Sorted, so that concurrent writers lock rows in the same order. A pair whose transfers net to zero
  // keeps its delta: its row must exist whichever blocks a batch happened to hold.
  return [...deltas].sort(byKey).map(([, d]) => d);
}

/**
 * The type of a contract whose Transfers came as `a` and as `b`: ERC-1155 if either did (its ids keep
 * balances of their own), else ERC-404 (fungible and non-fungible Transfers of one contract). The rule
 * is commutative and associative: a contract's type does not hang on the order its transfers are
 * written in, and the bulk load's ledger (`buildTokens`) gives the same from all of them at once.
 */
function joinTokenTypes(a: TokenType, b: TokenType): TokenType {
  if (a === b) return a;
  return a === 'ERC-1155' || b === 'ERC-1155' ? 'ERC-1155' : 'ERC-404';
}

/**
 * Inserts the tokens of `transfers` not known yet, and types them by all their transfers so far (see
 * joinTokenTypes). A bulk load writes them too, so that the token metadata stage reads their names
 * while the load runs.
 */
export async function recordTokens(client: PoolClient, transfers: readonly TokenTransferRecord[]): Promise<void> {
  const types = new Map<Address, TokenType>();
  for (const t of transfers) {
    const seen = types.get(t.tokenAddress);
    types.set(t.tokenAddress, seen === undefined ? t.tokenType : joinTokenTypes(seen, t.tokenType));
  }
  if (types.size === 0) return;
  const addresses = [...types.keys()].sort();
  // The upsert also locks the token rows for the rest of the transaction: the token metadata store
  // takes them first too. Rows inserted have no xmax; rows updated do.
  const { rows } = await client.query<{ address: Buffer; type: TokenType }>(
    `WITH upserted AS (
       INSERT INTO tokens (address, type) SELECT * FROM unnest($1::bytea[], $2::text[])
       ON CONFLICT (address) DO UPDATE
         SET type = CASE WHEN 'ERC-1155' IN (tokens.type, EXCLUDED.type) THEN 'ERC-1155' ELSE 'ERC-404' END
       WHERE tokens.type <> EXCLUDED.type
       RETURNING address, type, xmax::text <> '0' AS updated
     )
     SELECT address, type FROM upserted WHERE updated`,
    [addresses.map(byteaFromHex), addresses.map((a) => types.get(a))],
  );
  if (rows.length === 0) return;
  // A statement of its own, so that it sees the balance rows committed while it waited for the token rows.
  await client.query(
    `UPDATE address_token_balances b SET token_type = r.type
     FROM unnest($1::bytea[], $2::text[]) AS r(address, type)
     WHERE b.token_address = r.address AND b.token_address = ANY($1::bytea[]) AND b.token_type <> r.type`,
    [rows.map((r) => r.address), rows.map((r) => r.type)],
  );
}

/**
 * Locks the rows of the tokens whose balances are about to move, in address order, as recordTokens
 * does for new transfers: whoever also updates those tokens' balance rows (the token metadata store)
 * takes the token rows first, so both wait on the token rows rather than on each other.
 */
async function lockTokens(client: PoolClient, transfers: readonly TokenTransferRecord[]): Promise<void> {
  const addresses = [...new Set(transfers.map((t) => t.tokenAddress))].sort();
  if (addresses.length === 0) return;
  await client.query('SELECT 1 FROM tokens WHERE address = ANY($1::bytea[]) ORDER BY address FOR NO KEY UPDATE', [
    addresses.map(byteaFromHex),
  ]);
}

/**
 * Adds the deltas to the balances and returns, from the same statement, how many (holder, token) pairs
 * each token gained or lost as holders: a pair holds while any of its rows is positive. A token typed
 * ERC-20 or ERC-721 has had no transfer of another type (types only widen, see joinTokenTypes; the
 * batch's are recorded first), so each of its pairs is one row, whose value before is its value after
 * less the delta. A pair of an ERC-1155 or ERC-404 token may have a row per id and rows the batch does
 * not touch: its rows are read as they were before the upsert (the statement's other parts see them so)
 * and joined with those the upsert returns as they are after (a row a zero delta leaves alone is not
 * returned and reads as before). New rows take the token's type and name from tokens, read by address
 * for the batch's tokens only.
 */
async function applyBalances(
  client: PoolClient,
  transfers: readonly TokenTransferRecord[],
  direction: 1n | -1n,
): Promise<Map<Address, bigint>> {
  const deltas = balanceDeltas(transfers, direction);
  const changes = new Map<Address, bigint>();
  if (deltas.length === 0) return changes;
  const { rows } = await client.query<{ token_address: Buffer; change: string }>(
    `WITH deltas AS (
       SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::numeric[], $4::numeric[]) WITH ORDINALITY
         AS d(address, token_address, token_id, delta, position)),
     batch_tokens AS (
       SELECT address, type, name, type IN ('ERC-1155', 'ERC-404') AS by_id FROM tokens WHERE address = ANY($5::bytea[])),
     upserted AS (
       INSERT INTO address_token_balances (address, token_address, token_id, value, token_type, token_name)
       SELECT d.address, d.token_address, d.token_id, d.delta, k.type, k.name
       FROM deltas d JOIN batch_tokens k ON k.address = d.token_address ORDER BY d.position
       ON CONFLICT (address, token_address, token_id) DO UPDATE SET value = address_token_balances.value + EXCLUDED.value
         WHERE EXCLUDED.value <> 0
       RETURNING address, token_address, token_id, value),
     single AS (
       SELECT u.token_address, u.value - d.delta > 0 AS held, u.value > 0 AS holds
       FROM upserted u JOIN deltas d ON d.address = u.address AND d.token_address = u.token_address
       JOIN batch_tokens k ON k.address = u.token_address AND NOT k.by_id),
     earlier AS (
       SELECT b.address, b.token_address, b.token_id, b.value FROM address_token_balances b
       WHERE (b.address, b.token_address) IN (
         SELECT d.address, d.token_address FROM deltas d JOIN batch_tokens k ON k.address = d.token_address AND k.by_id)),
     later AS (SELECT u.* FROM upserted u JOIN batch_tokens k ON k.address = u.token_address AND k.by_id),
     by_id AS (
       SELECT coalesce(u.token_address, e.token_address) AS token_address,
         coalesce(bool_or(e.value > 0), false) AS held, bool_or(coalesce(u.value, e.value) > 0) AS holds
       FROM earlier e FULL JOIN later u ON u.address = e.address AND u.token_address = e.token_address
         AND coalesce(u.token_id, -1) = coalesce(e.token_id, -1)
       GROUP BY coalesce(u.address, e.address), coalesce(u.token_address, e.token_address))
     SELECT token_address, sum(holds::int - held::int) AS change FROM (SELECT * FROM single UNION ALL SELECT * FROM by_id) h
     GROUP BY token_address HAVING sum(holds::int - held::int) <> 0`,
    [
      deltas.map((d) => byteaFromHex(d.holder)),
      deltas.map((d) => byteaFromHex(d.token)),
      deltas.map((d) => d.tokenId?.toString() ?? null),
      deltas.map((d) => d.delta.toString()),
      [...new Set(deltas.map((d) => d.token))].map(byteaFromHex),
    ],
  );
  for (const r of rows) changes.set(hexFromBytea(r.token_address), BigInt(r.change));
  return changes;
}

interface InstanceChange {
  token: Address;
  id: bigint;
  /** Null for ERC-1155 ids, which have no single owner. */
  owner: Address | null;
  blockNumber: bigint | null;
  logIndex: number | null;
  /** The transfer logs that mention the id. */
  transfers: number;
}

const isLater = (a: TokenTransferRecord, b: TokenTransferRecord): boolean =>
  a.blockNumber !== b.blockNumber ? a.blockNumber > b.blockNumber : a.logIndex > b.logIndex;

/**
 * The transfers of each NFT id, by `token:id`, the entries of one batch log that name the id more
 * than once counting as one transfer (E4 lists it once). A log is written and retracted whole, with
 * its block, so counting within the transfers at hand counts it once overall.
 */
function transfersById(transfers: readonly TokenTransferRecord[]): Map<string, { latest: TokenTransferRecord; logs: Set<string> }> {
  const ids = new Map<string, { latest: TokenTransferRecord; logs: Set<string> }>();
  for (const t of transfers) {
    if (t.tokenId === null) continue;
    const key = `${t.tokenAddress}:${t.tokenId}`;
    const seen = ids.get(key) ?? { latest: t, logs: new Set<string>() };
    if (isLater(t, seen.latest)) seen.latest = t;
    seen.logs.add(`${t.blockHash}:${t.logIndex}`);
    ids.set(key, seen);
  }
  return ids;
}

/**
 * NFT ids get an instance row, which counts their transfers; an ERC-721 (or ERC-404) id's owner is
 * the recipient of its latest transfer, compared by position because batches may be written out of order.
 */
async function recordInstances(client: PoolClient, transfers: readonly TokenTransferRecord[]): Promise<void> {
  const ids = transfersById(transfers);
  if (ids.size === 0) return;
  const rows: InstanceChange[] = [...ids].sort(byKey).map(([, { latest: t, logs }]) => {
    const owned = t.tokenType !== 'ERC-1155';
    return {
      token: t.tokenAddress,
      id: t.tokenId!,
      owner: owned ? t.to : null,
      blockNumber: owned ? t.blockNumber : null,
      logIndex: owned ? t.logIndex : null,
      transfers: logs.size,
    };
  });
  // The owner moves only to a later transfer's recipient; the count grows whatever the order.
  const later = `EXCLUDED.owner IS NOT NULL AND (token_instances.owner_block_number IS NULL
    OR (token_instances.owner_block_number, token_instances.owner_log_index) < (EXCLUDED.owner_block_number, EXCLUDED.owner_log_index))`;
  const moved = (column: string) => `${column} = CASE WHEN ${later} THEN EXCLUDED.${column} ELSE token_instances.${column} END`;
  await client.query(
    `INSERT INTO token_instances (token_address, token_id, owner, owner_block_number, owner_log_index, transfers_count)
     SELECT * FROM unnest($1::bytea[], $2::numeric[], $3::bytea[], $4::bigint[], $5::integer[], $6::bigint[])
     ON CONFLICT (token_address, token_id) DO UPDATE
     SET transfers_count = token_instances.transfers_count + EXCLUDED.transfers_count,
       ${['owner', 'owner_block_number', 'owner_log_index'].map(moved).join(', ')}`,
    [
      rows.map((r) => byteaFromHex(r.token)),
      rows.map((r) => r.id.toString()),
      rows.map((r) => nullableByteaFromHex(r.owner)),
      rows.map((r) => r.blockNumber?.toString() ?? null),
      rows.map((r) => r.logIndex),
      rows.map((r) => r.transfers),
    ],
  );
}

/**
 * Updates each token of the transfers once, in one statement (tokens has many indexes, holders_count
 * and supply_mark among them, so that each update writes an entry in each): its transfers_count by its
 * number of transfers (rows: an ERC-1155 batch counts once per id), added or with direction -1 taken
 * away; its holders_count by `holders`; and, for the tokens the transfers mint or burn, a new supply
 * mark, for the metadata stage to read their total supply again (ERC-1155 contracts have no
 * totalSupply() and are not marked). The token rows are locked already.
 */
async function updateTokens(
  client: PoolClient,
  transfers: readonly TokenTransferRecord[],
  direction: 1n | -1n,
  holders: ReadonlyMap<Address, bigint>,
): Promise<void> {
  const tokens = new Map<Address, { transfers: bigint; supplyMoved: boolean }>();
  for (const t of transfers) {
    const token = tokens.get(t.tokenAddress) ?? { transfers: 0n, supplyMoved: false };
    token.transfers += direction;
    if (t.tokenType !== 'ERC-1155' && (t.from === ZERO_ADDRESS || t.to === ZERO_ADDRESS)) token.supplyMoved = true;
    tokens.set(t.tokenAddress, token);
  }
  if (tokens.size === 0) return;
  const addresses = [...tokens.keys()].sort();
  await client.query(
    `UPDATE tokens SET transfers_count = transfers_count + c.transfers, holders_count = holders_count + c.holders,
       supply_mark = CASE WHEN c.supply_moved THEN nextval('token_supply_marks') ELSE supply_mark END
     FROM unnest($1::bytea[], $2::bigint[], $3::bigint[], $4::boolean[]) AS c(address, transfers, holders, supply_moved)
     WHERE tokens.address = c.address`,
    [
      addresses.map(byteaFromHex),
      addresses.map((a) => tokens.get(a)!.transfers.toString()),
      addresses.map((a) => (holders.get(a.toLowerCase() as Address) ?? 0n).toString()),
      addresses.map((a) => tokens.get(a)!.supplyMoved),
    ],
  );
}

/** Records the tokens, balances, holder counts, transfer counts (per token and per NFT id) and owners that newly written transfers imply. */
export async function applyTokenTransfers(client: PoolClient, transfers: readonly TokenTransferRecord[]): Promise<void> {
  await recordTokens(client, transfers);
  const holders = await applyBalances(client, transfers, 1n);
  await recordInstances(client, transfers);
  await updateTokens(client, transfers, 1n, holders);
}

/**
 * After transfers are removed, sets each affected ERC-721 (or ERC-404) id's owner from the latest
 * transfer still indexed (null when none is left).
 */
async function revertOwners(client: PoolClient, removed: readonly TokenTransferRecord[]): Promise<void> {
  const owned = removed.filter((t) => t.tokenId !== null && t.tokenType !== 'ERC-1155');
  if (owned.length === 0) return;
  await client.query(
    `UPDATE token_instances ti SET owner = l.to_address, owner_block_number = l.block_number, owner_log_index = l.log_index
     FROM unnest($1::bytea[], $2::numeric[]) AS r(token_address, token_id)
     LEFT JOIN LATERAL (
       SELECT tt.to_address, tt.block_number, tt.log_index FROM token_transfers tt
       WHERE tt.token_address = r.token_address AND tt.token_id = r.token_id
       ORDER BY tt.block_number DESC, tt.log_index DESC, tt.batch_index DESC LIMIT 1) l ON true
     WHERE ti.token_address = r.token_address AND ti.token_id = r.token_id`,
    [owned.map((t) => byteaFromHex(t.tokenAddress)), owned.map((t) => t.tokenId!.toString())],
  );
}

/**
 * The NFT ids of removed transfers lose those transfers from their count, and may have had their
 * metadata read from the state of the lost blocks (where an id may not even exist). An id that no
 * indexed transfer mentions any more is forgotten, so that a transfer indexed later brings it back as
 * new; the others are sent back to the metadata stage.
 */
async function refreshInstances(client: PoolClient, removed: readonly TokenTransferRecord[]): Promise<void> {
  const ids = transfersById(removed);
  if (ids.size === 0) return;
  // Sorted, so that concurrent writers lock rows in the same order.
  const keys = [...ids]
    .sort(byKey)
    .map(([, { latest, logs }]) => ({ token: latest.tokenAddress, id: latest.tokenId!, removed: logs.size }));
  const params = [keys.map((k) => byteaFromHex(k.token)), keys.map((k) => k.id.toString())];
  await client.query(
    `DELETE FROM token_instances ti USING unnest($1::bytea[], $2::numeric[]) AS r(token_address, token_id)
     WHERE ti.token_address = r.token_address AND ti.token_id = r.token_id
       AND NOT EXISTS (SELECT 1 FROM token_transfers tt WHERE tt.token_address = r.token_address AND tt.token_id = r.token_id)`,
    params,
  );
  await client.query(
    `UPDATE token_instances ti SET metadata_fetched_at = NULL, metadata_mark = nextval('token_instance_metadata_marks'),
       transfers_count = ti.transfers_count - r.removed
     FROM unnest($1::bytea[], $2::numeric[], $3::bigint[]) AS r(token_address, token_id, removed)
     WHERE ti.token_address = r.token_address AND ti.token_id = r.token_id`,
    [...params, keys.map((k) => k.removed)],
  );
}

/**
 * A token that no indexed transfer mentions any more (one seen only on a lost branch) is forgotten with
 * its balance rows (all zero by now), as a clean index of the chain never knew it: a transfer indexed
 * later records it again as new.
 */
async function forgetTokens(client: PoolClient, removed: readonly TokenTransferRecord[]): Promise<void> {
  const addresses = [...new Set(removed.map((t) => t.tokenAddress))].sort().map(byteaFromHex);
  if (addresses.length === 0) return;
  const { rows } = await client.query<{ address: Buffer }>(
    `DELETE FROM tokens k WHERE k.address = ANY($1::bytea[])
       AND NOT EXISTS (SELECT 1 FROM token_transfers tt WHERE tt.token_address = k.address)
     RETURNING k.address`,
    [addresses],
  );
  if (rows.length === 0) return;
  await client.query('DELETE FROM address_token_balances WHERE token_address = ANY($1::bytea[])', [rows.map((r) => r.address)]);
}

/**
 * Reverts what removed transfers implied: balances, holder and transfer counts by the opposite deltas,
 * supply marks for the mints and burns removed, the owners of the NFT ids they moved, those ids'
 * transfer counts and metadata, and the tokens they alone mentioned.
 */
export async function revertTokenTransfers(client: PoolClient, transfers: readonly TokenTransferRecord[]): Promise<void> {
  await lockTokens(client, transfers);
  await updateTokens(client, transfers, -1n, await applyBalances(client, transfers, -1n));
  await revertOwners(client, transfers);
  await refreshInstances(client, transfers);
  await forgetTokens(client, transfers);
}

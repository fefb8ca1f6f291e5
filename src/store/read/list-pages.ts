import {
  type AccountList,
  accountListKeys,
  accountListSides,
  checkpointColumns,
  fromKeyset,
  type ListSide,
  mergedKeys,
  withConditions,
} from '../account-lists.js';
import { LIST_CHECKPOINT_INTERVAL } from '../list-checkpoints.js';
import { type Db, SqlParams } from './sql.js';

/**
 * The lists of the Etherscan-style API: a page (`page` of `offset` rows) of an address's rows in
 * block order, within a block range. Each side of the list (the address as sender, as recipient...)
 * is one range of its index in the list's order; the planner merges the sides in that order (a Merge
 * Append) and the page is cut from the merge, read in order and stopped at the page's end. A row
 * before the page costs an index entry (and a table row where a side tests a column its index lacks,
 * as a token filter does), and only the page's rows are read in full. The API bounds page × offset
 * (10,000, as Blockscout does), so a deep page merges at most that many rows. A busy address's
 * account lists have checkpoints (list_checkpoints): a page after the first starts at the one below
 * it and skips fewer than LIST_CHECKPOINT_INTERVAL rows.
 */
export interface ListWindow {
  /** 1-based. */
  page: number;
  /** Rows per page. */
  offset: number;
  descending: boolean;
  startBlock: number | null;
  endBlock: number | null;
}

/** An account list of one address, whose checkpoints a page may start from. */
export interface CheckpointedList {
  list: AccountList;
  address: Buffer;
}

/** Rows a count from a checkpoint reads at most; a page that needs more is read without checkpoints. */
const COUNT_LIMIT = 4 * LIST_CHECKPOINT_INTERVAL;

/** Where a page starts: the checkpoint's key, how many rows after it to skip, how many to take. */
interface PageStart {
  at: string[];
  skip: number;
  take: number;
}

/** Checkpoints are right while no block is indexed below where their scan began (migration 071). */
const checkpointsHold = '(SELECT min(number) FROM blocks WHERE consensus) >= (SELECT from_block FROM list_scan)';

/**
 * The ordinal of the list's first row at or above block `below` (null: past the last row), counted
 * from the checkpoint below it: its ordinal and the rows after it, or null when the count would read
 * more than COUNT_LIMIT rows.
 */
async function ordinalAt(db: Db, target: CheckpointedList, below: number | null): Promise<number | null> {
  const params = new SqlParams();
  const [list, address] = [params.add(target.list), params.add(target.address)];
  const keys = accountListKeys(target.list);
  const columns = checkpointColumns(keys);
  const belowParam = below === null ? null : `${params.add(below)}::bigint`;
  const bound = belowParam === null ? [] : [`s.block_number < ${belowParam}`];
  // A token list's name is its token type.
  const sides = withConditions(accountListSides(address, target.list === 'transactions' ? null : list), [
    fromKeyset(
      keys,
      columns.map((column) => `c.${column}`),
      false,
    ),
    ...bound,
  ]);
  const { rows } = await db.query<{ ordinal: string; counted: string }>(
    `SELECT c.ordinal, (SELECT count(*) FROM (${mergedKeys(sides, keys, false, String(COUNT_LIMIT))} LIMIT ${COUNT_LIMIT}) x) AS counted
     FROM list_checkpoints c
     WHERE c.list = ${list} AND c.address = ${address} ${belowParam === null ? '' : `AND c.block_number < ${belowParam}`}
       AND ${checkpointsHold}
     ORDER BY c.ordinal DESC LIMIT 1`,
    params.values,
  );
  const row = rows[0];
  // No checkpoint below the block: the list's first row (checkpoint 0) is at or above it.
  if (row === undefined) return 0;
  const counted = Number(row.counted);
  return counted >= COUNT_LIMIT ? null : Number(row.ordinal) + counted;
}

/**
 * Where the window's page starts from a checkpoint of the list; null when the list has none (an address
 * not busy enough, or checkpoints not written yet) or a count from one would read too many rows.
 */
async function locatePage(db: Db, target: CheckpointedList, window: ListWindow): Promise<PageStart | null> {
  const rowsBefore = (window.page - 1) * window.offset;
  const lowest = window.startBlock === null ? 0 : await ordinalAt(db, target, window.startBlock);
  if (lowest === null) return null;
  let first = lowest + rowsBefore;
  let take = window.offset;
  if (window.descending) {
    const end = await ordinalAt(db, target, window.endBlock === null ? null : window.endBlock + 1);
    if (end === null) return null;
    const top = end - rowsBefore;
    first = Math.max(lowest, top - window.offset);
    take = Math.max(0, top - first);
  }
  const params = new SqlParams();
  const keys = accountListKeys(target.list);
  const columns = checkpointColumns(keys);
  const { rows } = await db.query<Record<string, string>>(
    `SELECT c.ordinal, ${columns.map((column) => `c.${column}`).join(', ')} FROM list_checkpoints c
     WHERE c.list = ${params.add(target.list)} AND c.address = ${params.add(target.address)} AND c.ordinal <= ${params.add(first)}
       AND ${checkpointsHold}
     ORDER BY c.ordinal DESC LIMIT 1`,
    params.values,
  );
  const checkpoint = rows[0];
  if (checkpoint === undefined) return null;
  return { at: columns.map((column) => checkpoint[column]!), skip: first - Number(checkpoint.ordinal), take };
}

/**
 * The SQL of the window's keys (`keys`, the list's order) of the sides, merged and cut to the page, in
 * the window's order; its values added to `params`. With `checkpointed`, a page after the first starts
 * at the list's checkpoint below it where it has one.
 */
export async function pageKeys(
  db: Db,
  params: SqlParams,
  sides: readonly ListSide[],
  keys: readonly string[],
  window: ListWindow,
  checkpointed: CheckpointedList | null,
): Promise<string> {
  const start = checkpointed === null || window.page === 1 ? null : await locatePage(db, checkpointed, window);
  const upTo = window.endBlock === null ? [] : [`s.block_number <= ${params.add(window.endBlock)}::bigint`];
  if (start === null) {
    const from = window.startBlock === null ? [] : [`s.block_number >= ${params.add(window.startBlock)}::bigint`];
    const inRange = withConditions(sides, [...from, ...upTo]);
    return `${mergedKeys(inRange, keys, window.descending, params.add(window.page * window.offset))}
            OFFSET ${params.add((window.page - 1) * window.offset)} LIMIT ${params.add(window.offset)}`;
  }
  // The page's first row is the start's: the rows skipped after the checkpoint are below the range's start if it has one.
  const from = fromKeyset(
    keys,
    start.at.map((value) => params.add(value)),
    false,
  );
  const fromCheckpoint = withConditions(sides, [from, ...upTo]);
  const page = `${mergedKeys(fromCheckpoint, keys, false, params.add(start.skip + start.take))}
                OFFSET ${params.add(start.skip)} LIMIT ${params.add(start.take)}`;
  return window.descending ? `SELECT * FROM (${page}) p ORDER BY ${keys.map((key) => `${key} DESC`).join(', ')}` : page;
}

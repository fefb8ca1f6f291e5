import type { Db } from '../store/read/sql.js';
import type { TokenTransferItem } from '../store/read/token-transfers.js';
import { calledMethods } from './contract-decoding.js';
import { type TokenTransfer, tokenTransferView } from './views/token-transfer.js';

/** Token transfers as the lists (and the websocket's pushes) render them, the methods of their transactions decoded in one read of the ABIs. */
export async function listedTokenTransfers(db: Db, items: readonly TokenTransferItem[]): Promise<TokenTransfer[]> {
  const methods = await calledMethods(
    db,
    items.map((item) => ({ to: item.transactionTo, input: item.input })),
  );
  return items.map((item, i) => tokenTransferView(item, methods[i]!));
}

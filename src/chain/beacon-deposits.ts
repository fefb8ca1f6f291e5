import type { Hex, LogRecord } from '../model.js';

/** Ethereum mainnet's beacon chain deposit contract, whose DepositEvent logs are EIP-6110's deposit requests. */
const DEPOSIT_CONTRACT: Hex = '0x00000000219ab540356cbb839cbe05303d7705fa';

/** keccak256("DepositEvent(bytes,bytes,bytes,bytes,bytes)") */
const DEPOSIT_EVENT: Hex = '0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5';

/** How many deposit requests a Prague block's logs make (EIP-6110: one per DepositEvent of the deposit contract). */
export const beaconDepositsCount = (logs: readonly LogRecord[]): number =>
  logs.filter((log) => log.address === DEPOSIT_CONTRACT && log.topics[0] === DEPOSIT_EVENT).length;

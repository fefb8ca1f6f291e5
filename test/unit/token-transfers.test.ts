import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeTokenTransfers } from '../../src/chain/token-transfers.js';
import type { Hex, LogRecord, TokenTransferRecord } from '../../src/model.js';

const receiptFiles = [
  'eth_getBlockReceipts/test_01.json',
  'eth_getBlockReceipts/test_02.json',
  'eth_getBlockReceipts/test_03.json',
  'eth_getBlockReceipts/test_09.json',
  'eth_getBlockReceipts/test_10.json',
  'erigon_getBlockReceiptsByBlockHash/test_01.json',
  'erigon_getBlockReceiptsByBlockHash/test_06.json',
  'erigon_getBlockReceiptsByBlockHash/test_10.json',
  'erigon_getBlockReceiptsByBlockHash/test_11.json',
];

interface RecordedLog {
  blockHash: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  logIndex: Hex;
  address: Hex;
  topics: Hex[];
  data: Hex;
}

function recordedLogs(file: string): LogRecord[] {
  const url = new URL(`../fixtures/erigon-rpc-tests/integration/mainnet/${file}`, import.meta.url);
  const [exchange] = JSON.parse(readFileSync(url, 'utf8')) as [{ response: { result: { logs: RecordedLog[] }[] } }];
  return exchange.response.result.flatMap((receipt) =>
    receipt.logs.map((log) => ({
      blockHash: log.blockHash,
      blockNumber: BigInt(log.blockNumber),
      transactionHash: log.transactionHash,
      transactionIndex: Number(log.transactionIndex),
      logIndex: Number(log.logIndex),
      address: log.address,
      topics: log.topics,
      data: log.data,
    })),
  );
}

const transfers = receiptFiles.flatMap((file) => decodeTokenTransfers(recordedLogs(file)));
const distinctLogs = (list: TokenTransferRecord[]) => new Set(list.map((t) => `${t.blockHash}:${t.logIndex}`)).size;
const ofType = (type: string) => transfers.filter((t) => t.tokenType === type);

test('nine mainnet blocks: 724 ERC-20, 64 ERC-721 and 11 ERC-1155 transfer logs', () => {
  assert.equal(distinctLogs(ofType('ERC-20')), 724);
  assert.equal(distinctLogs(ofType('ERC-721')), 64);
  assert.equal(distinctLogs(ofType('ERC-1155')), 11);
  assert.equal(ofType('ERC-404').length, 0);
});

test('the one TransferBatch (block 15,999,999, log 149) is a one-id mint', () => {
  const batch = transfers.filter(
    (t) => t.blockHash === '0x6f377dc6bd1f3e38b9ceb8c946a88c13211fa3f084622df3ee5cfcd98cc6bb16' && t.logIndex === 0x95,
  );
  assert.deepEqual(
    batch.map(({ tokenType, from, to, tokenId, amount, batchIndex }) => ({ tokenType, from, to, tokenId, amount, batchIndex })),
    [
      {
        tokenType: 'ERC-1155',
        from: '0x0000000000000000000000000000000000000000',
        to: '0x64e8e95205ed2d2e3c799105faa618ee4d5065d0',
        tokenId: 0x1dn,
        amount: 1n,
        batchIndex: 0,
      },
    ],
  );
});

test('ERC-20 amounts come from the data and ERC-721 ids from the fourth topic', () => {
  const erc20 = ofType('ERC-20')[0]!;
  assert.equal(erc20.tokenId, null);
  assert.ok(erc20.amount >= 0n, `amount ${erc20.amount}`);
  for (const t of ofType('ERC-721')) {
    assert.equal(t.amount, 1n);
    assert.notEqual(t.tokenId, null);
  }
});

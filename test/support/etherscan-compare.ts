import assert from 'node:assert/strict';

/**
 * The Etherscan-style API's items against /api/v2's items for the same data: what each field of the
 * one must be, given the other (Blockscout's rpc views and its /api/v2 views read the same rows).
 */

/** A txlist item against /api/v2's transaction. */
export function assertTxlistItemIsV2(item: any, t: any): void {
  const at = `transaction ${item.hash}`;
  assert.equal(item.hash, t.hash, at);
  assert.equal(item.blockNumber, String(t.block_number), at);
  assert.equal(item.timeStamp, String(Date.parse(t.timestamp) / 1000), at);
  assert.equal(item.from, t.from.hash.toLowerCase(), at);
  assert.equal(item.to, t.to === null ? '' : t.to.hash.toLowerCase(), at);
  assert.equal(item.contractAddress, t.created_contract === null ? '' : t.created_contract.hash.toLowerCase(), at);
  assert.equal(item.value, t.value, at);
  assert.equal(item.gas, String(t.gas_limit), at);
  assert.equal(item.gasUsed, t.gas_used, at);
  assert.equal(item.gasPrice, t.gas_price, at);
  assert.equal(item.nonce, String(t.nonce), at);
  assert.equal(item.transactionIndex, String(t.position), at);
  assert.equal(item.input, t.raw_input, at);
  assert.equal(item.txreceipt_status, t.status === 'ok' ? '1' : '0', at);
  assert.equal(item.isError, t.status === 'ok' ? '0' : '1', at);
}

/** A tokentx item against /api/v2's ERC-20 token transfer. */
export function assertTokentxItemIsV2(item: any, t: any): void {
  const at = `transfer ${item.hash}:${item.logIndex}`;
  assert.equal(item.hash, t.transaction_hash, at);
  assert.equal(item.logIndex, String(t.log_index), at);
  assert.equal(item.blockNumber, String(t.block_number), at);
  assert.equal(item.from, t.from.hash.toLowerCase(), at);
  assert.equal(item.to, t.to.hash.toLowerCase(), at);
  assert.equal(item.contractAddress, t.token.address_hash.toLowerCase(), at);
  assert.equal(item.value, t.total.value, at);
  assert.equal(item.tokenDecimal, t.token.decimals ?? '', at);
}

/** A getLogs item against /api/v2's log. */
export function assertLogItemIsV2(item: any, log: any): void {
  const at = `log ${log.transaction_hash}:${log.index}`;
  assert.equal(item.address, log.address.hash.toLowerCase(), at);
  assert.deepEqual(item.topics, log.topics, at);
  assert.equal(item.data, log.data, at);
  assert.equal(item.blockNumber, `0x${log.block_number.toString(16)}`, at);
  assert.equal(item.logIndex, `0x${log.index.toString(16)}`, at);
  assert.equal(item.transactionHash, log.transaction_hash, at);
}

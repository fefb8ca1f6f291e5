import type pg from 'pg';
import { pino } from 'pino';
import { detectCapabilities } from '../../src/chain/capabilities.js';
import { startIndexer } from '../../src/indexer/blocks/indexer.js';
import { startTraceStage } from '../../src/indexer/stages/trace-stage.js';
import type { TestDatabase } from './database.js';
import { testIndexerOptions } from './indexer-options.js';
import { waitFor } from './wait.js';
import solc from 'solc';
import { type Abi, type Address, type Hash, type Hex, createWalletClient, getAddress, http, keccak256 } from 'viem';
import { createRpcClient, type RpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { runScenario, type ScenarioResult } from '../../src/demo/scenario.js';
import { abiEntries } from '../../src/decoding/index.js';
import { saveContractMethods } from '../../src/store/contract-methods.js';
import { bytea } from './database.js';
import { waitForMined } from './mined.js';

/**
 * A contract whose calls, logs and reverts exercise decoding: structs holding arrays, an array of
 * structs, an indexed string, unnamed parameters, a custom error with arguments and Error(string).
 */
const probeSource = `// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

contract DecodingProbe {
    struct Order { address maker; uint256[] amounts; bytes32 tag; bool open; }

    error TooLow(uint256 given, uint256 needed, string why);

    event Placed(address indexed maker, Order order, string indexed label, uint256[2] pair);
    event Counted(uint256 indexed, bytes);

    function place(Order calldata order, string calldata label, uint256[2] calldata pair, Order[] calldata more) external {
        emit Placed(msg.sender, order, label, pair);
        emit Counted(more.length, abi.encodePacked(label));
    }

    function check(uint256 given) external pure {
        if (given < 10) revert TooLow(given, 10, "too low");
    }

    function fail(string calldata why) external pure {
        revert(why);
    }

    function unnamed(uint256, address) external {}
}
`;

export interface Compiled {
  abi: Abi;
  bytecode: Hex;
}

/** DecodingProbe compiled with the bundled solc-js, as the demo's contracts are. */
export function compileProbe(): Compiled {
  const input = {
    language: 'Solidity',
    sources: { 'DecodingProbe.sol': { content: probeSource } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contract = output.contracts['DecodingProbe.sol']!.DecodingProbe!;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

export interface DecodingChain {
  anvil: AnvilNode;
  client: RpcClient;
  scenario: ScenarioResult;
  probe: Compiled;
  /** Two deployments of the same code: the first is to be verified, the second is its bytecode twin. */
  probes: { first: Address; twin: Address };
  /** The transactions sent to the probes, by what they do. */
  sent: {
    placed: Hash;
    placedOnTwin: Hash;
    unnamed: Hash;
    tooLow: Hash;
    failed: Hash;
    unknownSelector: Hash;
  };
}

export const probeOrder = (maker: Address, n: bigint) => ({
  maker,
  amounts: [n, n * 1000n, 2n ** 255n + n],
  tag: `0x${n.toString(16).padStart(64, '0')}` as Hex,
  open: n % 2n === 0n,
});

/** The demo scenario on a new anvil, then the probe deployed twice and called; anvil is stopped if that fails. */
export async function startDecodingChain(): Promise<DecodingChain> {
  const anvil = await startAnvil();
  try {
    const scenario = await runScenario(anvil.rpcUrl);
    const client = createRpcClient({ url: anvil.rpcUrl });
    const wallet = createWalletClient({ transport: http(anvil.rpcUrl) });
    const probe = compileProbe();
    const { alice, bob } = scenario.accounts;
    const deploy = async (): Promise<Address> => {
      const hash = await wallet.deployContract({ abi: probe.abi, bytecode: probe.bytecode, account: alice, chain: null });
      await waitForMined(client, hash);
      const receipt = await client.request<{ contractAddress: Address }>('eth_getTransactionReceipt', [hash]);
      return getAddress(receipt.contractAddress);
    };
    const probes = { first: await deploy(), twin: await deploy() };
    const send = async (address: Address, functionName: string, args: readonly unknown[], gas?: bigint): Promise<Hash> => {
      const hash = await wallet.writeContract({ address, abi: probe.abi, functionName, args, account: bob, chain: null, gas });
      await waitForMined(client, hash);
      return hash;
    };
    const placeArgs = [probeOrder(alice, 1n), 'first label', [7n, 8n], [probeOrder(bob, 2n), probeOrder(alice, 3n)]] as const;
    // An explicit gas limit skips estimation, which would refuse the reverting calls; the node mines them with status 0.
    const sent = {
      placed: await send(probes.first, 'place', placeArgs),
      placedOnTwin: await send(probes.twin, 'place', [probeOrder(bob, 4n), 'twin label', [9n, 10n], []]),
      unnamed: await send(probes.first, 'unnamed', [42n, alice]),
      tooLow: await send(probes.first, 'check', [3n], 100_000n),
      failed: await send(probes.first, 'fail', ['it had to fail'], 100_000n),
      unknownSelector: await wallet.sendTransaction({ to: probes.first, data: '0xdeadbeef01', account: bob, chain: null, gas: 100_000n }),
    };
    await waitForMined(client, sent.unknownSelector);
    return { anvil, client, scenario, probe, probes, sent };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/**
 * contract_codes as the contract code stage fills it: the runtime code hash of every contract the index
 * knows, read from the node at `head`. Returns the hashes by lowercase address.
 */
export async function storeContractCodes(pool: pg.Pool, client: RpcClient, head: bigint): Promise<Map<string, Hex>> {
  const hashes = new Map<string, Hex>();
  const contracts = await pool.query<{ hash: Buffer }>('SELECT hash FROM addresses WHERE is_contract');
  for (const { hash } of contracts.rows) {
    const address = `0x${hash.toString('hex')}`;
    const code = await client.request<Hex>('eth_getCode', [address, `0x${head.toString(16)}`]);
    if (code === '0x') continue;
    hashes.set(address, keccak256(code));
    await pool.query('INSERT INTO contract_codes (address, code_hash, block_number) VALUES ($1, $2, $3)', [
      hash,
      bytea(keccak256(code)),
      head.toString(),
    ]);
  }
  return hashes;
}

/** A verification as it lands: the verified_contracts row, and the ABI's items in contract_methods. */
export async function storeVerifiedContract(pool: pg.Pool, address: string, codeHash: Hex, abi: Abi): Promise<void> {
  await pool.query(
    `INSERT INTO verified_contracts (address, code_hash, name, file_path, language, compiler_version, compiler_settings,
       optimization_enabled, optimization_runs, evm_version, abi, source_code, additional_sources, constructor_args,
       external_libraries, license_type, match_type, method, verified_at)
     VALUES ($1, $2, 'Contract', 'Contract.sol', 'solidity', 'v0.8.37+commit.f401782d', '{}', true, 200, 'cancun', $3,
       '', '[]', NULL, '[]', NULL, 'full', 'standard-json', now())`,
    [bytea(address), bytea(codeHash), JSON.stringify(abi)],
  );
  await saveContractMethods(pool, abiEntries(abi));
}

/** Indexes the chain up to the node's head, traces every block, and returns that head. */
export async function indexAndTrace(client: RpcClient, db: TestDatabase): Promise<bigint> {
  const head = BigInt(await client.request<string>('eth_blockNumber', []));
  await startIndexer(await testIndexerOptions(db, client, head)).done;
  const traces = startTraceStage({
    pool: db.pool,
    client,
    traceMethod: (await detectCapabilities(client)).traceMethod,
    logger: pino({ level: 'silent' }),
    batchSize: 5,
    concurrency: 2,
    pollIntervalMs: 50,
    backoff: { initialMs: 10, maxMs: 100 },
  });
  const untraced = async () => Number((await db.pool.query('SELECT count(*) AS n FROM blocks WHERE traced_at IS NULL')).rows[0].n);
  await waitFor(async () => (await untraced()) === 0, 'every block is traced', { timeoutMs: 60_000 });
  await traces.stop();
  return head;
}

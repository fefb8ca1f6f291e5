import { formatEther } from 'viem';
import { readChainTiming } from '../store/read/chain.js';
import { countPendingTransactionsSince, readDayTotals } from '../store/read/daily-figures.js';
import { countSmartContracts } from '../store/read/smart-contracts.js';
import { readActivitySince, readChainTotals } from '../store/read/stats.js';
import type { Db } from '../store/read/sql.js';
import { type Counter, counter, utcDay } from './views/stats-service.js';

const hour = 60 * 60 * 1000;
const day = 24 * hour;

/** The stats service's counters, under its ids, each from the figures Sextant keeps (see the README's Charts). */
export interface StatsCounters {
  averageBlockTime: Counter;
  totalAddresses: Counter;
  totalBlocks: Counter;
  totalTxns: Counter;
  yesterdayTxns: Counter;
  newTxns24h: Counter;
  pendingTxns30m: Counter;
  txnsFee24h: Counter;
  averageTxnFee24h: Counter;
  totalContracts: Counter;
  lastNewContracts: Counter;
  newContracts24h: Counter;
  totalVerifiedContracts: Counter;
  newVerifiedContracts24h: Counter;
}

export async function readStatsCounters(db: Db, now: Date): Promise<StatsCounters> {
  const [timing, totals, yesterday, today, last24h, pending, contracts] = await Promise.all([
    readChainTiming(db),
    readChainTotals(db),
    readDayTotals(db, utcDay(new Date(now.getTime() - day))),
    readDayTotals(db, utcDay(now)),
    readActivitySince(db, new Date(now.getTime() - day)),
    countPendingTransactionsSince(db, new Date(now.getTime() - hour / 2)),
    countSmartContracts(db),
  ]);
  const seconds = (timing.averageBlockTimeMs ?? 0) / 1000;
  const averageFee = last24h.transactions === 0n ? 0n : last24h.fees / last24h.transactions;
  return {
    averageBlockTime: counter(
      'averageBlockTime',
      seconds.toString(),
      'Average block time',
      'Average time taken in seconds for a block to be included in the blockchain',
      's',
    ),
    totalAddresses: counter(
      'totalAddresses',
      totals.addresses.toString(),
      'Total addresses',
      'Number of addresses that participated in the blockchain',
    ),
    totalBlocks: counter('totalBlocks', totals.blocks.toString(), 'Total blocks', 'Number of blocks over all time'),
    totalTxns: counter('totalTxns', totals.transactions.toString(), 'Total txns', 'All transactions of the consensus blocks'),
    yesterdayTxns: counter('yesterdayTxns', yesterday.transactions.toString(), 'Yesterday txns', 'Number of transactions yesterday (UTC)'),
    newTxns24h: counter(
      'newTxns24h',
      last24h.transactions.toString(),
      'Transactions',
      'Number of new transactions within last 24 hours',
      '24h',
    ),
    pendingTxns30m: counter(
      'pendingTxns30m',
      pending.toString(),
      'Pending transactions',
      'Number of pending transactions seen within last 30 minutes',
      '30min',
    ),
    txnsFee24h: counter(
      'txnsFee24h',
      formatEther(last24h.fees),
      'Transactions fees',
      'Sum of the fees of the transactions within last 24 hours',
      'ETH',
    ),
    averageTxnFee24h: counter(
      'averageTxnFee24h',
      formatEther(averageFee),
      'Avg. transaction fee',
      'Average fee of the transactions within last 24 hours',
      'ETH',
    ),
    totalContracts: counter('totalContracts', contracts.contracts.toString(), 'Total contracts', 'Number of contracts'),
    lastNewContracts: counter(
      'lastNewContracts',
      today.newContracts.toString(),
      'Number of deployed contracts today',
      'Number of deployed contracts today',
    ),
    newContracts24h: counter(
      'newContracts24h',
      contracts.newContracts24h.toString(),
      'Contracts',
      'Number of contracts deployed within last 24 hours',
    ),
    totalVerifiedContracts: counter(
      'totalVerifiedContracts',
      contracts.verified.toString(),
      'Total verified contracts',
      'Number of verified contracts',
    ),
    newVerifiedContracts24h: counter(
      'newVerifiedContracts24h',
      contracts.newVerified24h.toString(),
      'Verified contracts',
      'Number of contracts verified within last 24 hours',
    ),
  };
}

-- The counters of an address's page (GET /api/v2/addresses/{h}/counters), kept with the blocks rather than
-- counted per request: the block writer adds what each batch brings, a retraction takes off what the
-- retracted blocks brought. transactions_count counts a transaction once for an address that sent it,
-- received it or was created by it; token_transfers_count one transfer row (one id of an ERC-1155 batch)
-- once for its sender or recipient; gas_usage the gas used by the transactions the address sent;
-- validations_count the consensus blocks it mined. A row at zero may stay: it reads as no row does.
CREATE TABLE address_counters (
  address               bytea   PRIMARY KEY,
  transactions_count    bigint  NOT NULL DEFAULT 0,
  token_transfers_count bigint  NOT NULL DEFAULT 0,
  gas_usage             numeric NOT NULL DEFAULT 0,
  validations_count     bigint  NOT NULL DEFAULT 0
);

-- The rows already indexed.
INSERT INTO address_counters (address, transactions_count, token_transfers_count, gas_usage, validations_count)
SELECT address, sum(transactions_count), sum(token_transfers_count), sum(gas_usage), sum(validations_count)
FROM (
  SELECT p.address, count(*) AS transactions_count, 0 AS token_transfers_count, 0 AS gas_usage, 0 AS validations_count
  FROM transactions t
  CROSS JOIN LATERAL (SELECT DISTINCT a FROM unnest(ARRAY[t.from_address, t.to_address, t.created_contract]) u(a) WHERE a IS NOT NULL) p(address)
  GROUP BY p.address
  UNION ALL
  SELECT from_address, 0, 0, sum(gas_used), 0 FROM transactions GROUP BY from_address
  UNION ALL
  SELECT p.address, 0, count(*), 0, 0
  FROM token_transfers tt
  CROSS JOIN LATERAL (SELECT DISTINCT a FROM unnest(ARRAY[tt.from_address, tt.to_address]) u(a)) p(address)
  GROUP BY p.address
  UNION ALL
  SELECT miner, 0, 0, 0, count(*) FROM blocks WHERE consensus GROUP BY miner
) s
GROUP BY address;

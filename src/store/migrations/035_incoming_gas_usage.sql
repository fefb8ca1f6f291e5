-- The gas used by the transactions sent to an address, which a contract's counters report (Blockscout's
-- gas_usage_count: for a contract, the gas of its incoming transactions when there is any, else of
-- those it sent). Kept as gas_usage is: added by the block writer, taken off by a retraction.
ALTER TABLE address_counters ADD COLUMN incoming_gas_usage numeric NOT NULL DEFAULT 0;

UPDATE address_counters c SET incoming_gas_usage = s.gas
FROM (SELECT to_address, sum(gas_used) AS gas FROM transactions WHERE to_address IS NOT NULL GROUP BY to_address) s
WHERE c.address = s.to_address;

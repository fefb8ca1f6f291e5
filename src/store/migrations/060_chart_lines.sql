-- The figures of the stats service's fee, gas, size, success and account lines, per UTC day of the
-- consensus chain, kept with the block writes and retractions like the others (see daily-figures.ts).
ALTER TABLE daily_figures
  ADD COLUMN successful_transactions bigint  NOT NULL DEFAULT 0,
  -- Transactions without input: the stats service's native coin transfers.
  ADD COLUMN native_transfers        bigint  NOT NULL DEFAULT 0,
  -- Σ of the blocks' transaction fees (gas used × effective gas price), in wei.
  ADD COLUMN transaction_fees        numeric NOT NULL DEFAULT 0,
  -- The transactions with an effective gas price, and the Σ of their prices in wei.
  ADD COLUMN priced_transactions     bigint  NOT NULL DEFAULT 0,
  ADD COLUMN gas_prices              numeric NOT NULL DEFAULT 0,
  ADD COLUMN gas_limit               numeric NOT NULL DEFAULT 0,
  -- The blocks whose size the node gave, and the Σ of their sizes in bytes.
  ADD COLUMN sized_blocks            bigint  NOT NULL DEFAULT 0,
  ADD COLUMN block_size              numeric NOT NULL DEFAULT 0,
  -- The senders whose first transaction is of the day: the rows of account_first_days of the day.
  ADD COLUMN new_accounts            bigint  NOT NULL DEFAULT 0;

-- The day of every sender's first transaction (the first day it has in daily_senders). `replaced_day` is
-- the day a writer's upsert moved it from, so that the writer learns it in RETURNING.
CREATE TABLE account_first_days (
  address      bytea PRIMARY KEY,
  day          date  NOT NULL,
  replaced_day date
);

-- A retraction finds a sender's next first day.
CREATE INDEX daily_senders_address ON daily_senders (address, day);

-- Contracts verified per UTC day (of verified_at), kept by the verification writer.
CREATE TABLE daily_verified_contracts (
  day       date   PRIMARY KEY,
  contracts bigint NOT NULL
);

-- The rows already indexed.
UPDATE daily_figures f
SET successful_transactions = s.successful_transactions, native_transfers = s.native_transfers,
    priced_transactions = s.priced_transactions, gas_prices = s.gas_prices
FROM (
  SELECT (block_timestamp AT TIME ZONE 'UTC')::date AS day, count(*) FILTER (WHERE status IS DISTINCT FROM 0) AS successful_transactions,
         count(*) FILTER (WHERE length(input) = 0) AS native_transfers, count(gas_price) AS priced_transactions,
         coalesce(sum(gas_price), 0) AS gas_prices
  FROM transactions GROUP BY 1
) s
WHERE s.day = f.day;

UPDATE daily_figures f
SET transaction_fees = b.transaction_fees, gas_limit = b.gas_limit, sized_blocks = b.sized_blocks, block_size = b.block_size
FROM (
  SELECT (timestamp AT TIME ZONE 'UTC')::date AS day, sum(transaction_fees) AS transaction_fees, sum(gas_limit) AS gas_limit,
         count(size) AS sized_blocks, coalesce(sum(size), 0) AS block_size
  FROM blocks WHERE consensus GROUP BY 1
) b
WHERE b.day = f.day;

INSERT INTO account_first_days (address, day) SELECT address, min(day) FROM daily_senders GROUP BY address;

UPDATE daily_figures f SET new_accounts = a.accounts
FROM (SELECT day, count(*) AS accounts FROM account_first_days GROUP BY day) a
WHERE a.day = f.day;

INSERT INTO daily_verified_contracts (day, contracts)
SELECT (verified_at AT TIME ZONE 'UTC')::date, count(*) FROM verified_contracts GROUP BY 1;

ALTER TABLE daily_figures
  ALTER COLUMN successful_transactions DROP DEFAULT,
  ALTER COLUMN native_transfers DROP DEFAULT,
  ALTER COLUMN transaction_fees DROP DEFAULT,
  ALTER COLUMN priced_transactions DROP DEFAULT,
  ALTER COLUMN gas_prices DROP DEFAULT,
  ALTER COLUMN gas_limit DROP DEFAULT,
  ALTER COLUMN sized_blocks DROP DEFAULT,
  ALTER COLUMN block_size DROP DEFAULT,
  ALTER COLUMN new_accounts DROP DEFAULT;

-- A verification role set up before this migration (README: DATABASE_VERIFICATION_URL) writes the new
-- table with the verified contracts: each role that may insert into verified_contracts may write it.
DO $$
DECLARE
  role_name name;
BEGIN
  FOR role_name IN
    SELECT DISTINCT r.rolname FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a JOIN pg_roles r ON r.oid = a.grantee
    WHERE c.oid = 'verified_contracts'::regclass AND a.privilege_type = 'INSERT' AND a.grantee <> c.relowner
  LOOP
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON daily_verified_contracts TO %I', role_name);
  END LOOP;
END $$;

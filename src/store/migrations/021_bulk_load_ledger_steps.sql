-- The ledger steps of a bulk load's switch still to run: listed when the ledger phase begins, each row
-- deleted in the transaction that runs its step. The steps run several at once, in any order their
-- dependencies allow, so that a count of the steps done no longer tells which ones are.
CREATE TABLE bulk_load_ledger_steps (
  name text PRIMARY KEY
);

-- A bulk load that was in its ledger phase when this migration ran counted its steps, which ran one by
-- one in this order: the ones after that count are still to run.
INSERT INTO bulk_load_ledger_steps (name)
SELECT s.name
FROM bulk_load b
CROSS JOIN unnest(ARRAY['tokens', 'balances and holders', 'instances', 'supply marks', 'address counters', 'chain totals',
                        'contracts', 'coin balance marks']) WITH ORDINALITY AS s(name, position)
WHERE b.phase = 'ledger' AND s.position > b.steps_done;

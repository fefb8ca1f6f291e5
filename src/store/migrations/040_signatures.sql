-- The signature database Sextant ships: function (and error) and event signatures by selector, to
-- decode the calls, reverts and logs of contracts nobody verified. Static data, loaded whole by the
-- indexer when the shipped source changes (src/app/signature-database.ts).
CREATE TABLE signatures (
  type      text  NOT NULL,  -- function (a function's or an error's: they share the 4-byte namespace) or event
  selector  bytea NOT NULL,  -- 4 bytes: a function's selector, an event's topic cut to 4 bytes (as contract_methods keys it)
  signature text  NOT NULL,  -- transfer(address,uint256): types only, no names
  name      text  NOT NULL,  -- transfer
  PRIMARY KEY (type, selector, signature)
);
-- The transaction list's method filter: a name to its selectors.
CREATE INDEX signatures_function_name ON signatures (name) WHERE type = 'function';

-- Which database the signatures table holds (one source at a time), so that a start loads it only when it changed.
CREATE TABLE signature_sources (
  source     text PRIMARY KEY,
  signatures integer NOT NULL,
  loaded_at  timestamptz NOT NULL DEFAULT now()
);

-- A name to the selectors of verified functions, beside the signatures: the same filter.
CREATE INDEX contract_methods_function_name ON contract_methods ((abi ->> 'name')) WHERE type = 'function';

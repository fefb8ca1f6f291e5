-- Proxies: what each checked contract delegates to, read from the node at the indexed head by the
-- proxy stage, and the contracts to check (again).

-- A contract found to be a proxy: its kind (Blockscout's proxy_type) and its implementations in order
-- (a diamond's facets, one address for the other kinds). A contract checked and found none has no row.
CREATE TABLE proxy_implementations (
  address         bytea   PRIMARY KEY,
  proxy_type      text    NOT NULL,  -- eip1167, eip1967, eip1967_beacon, eip1967_oz, eip1822, eip2535, master_copy, eip7702
  implementations bytea[] NOT NULL,
  beacon          bytea,             -- an eip1967_beacon proxy's beacon: its upgrade changes this proxy
  block_number    bigint  NOT NULL   -- the indexed head the proxy was read at
);
CREATE INDEX proxy_implementations_beacon ON proxy_implementations (beacon) WHERE beacon IS NOT NULL;

-- Contracts to check: each mark is a new number, so that a check made before it does not clear it.
CREATE SEQUENCE proxy_mark_numbers;
CREATE TABLE proxy_marks (
  address bytea  PRIMARY KEY,
  mark    bigint NOT NULL
);

-- A contract whose runtime code is read (again) is checked (again).
CREATE FUNCTION mark_proxy_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO proxy_marks (address, mark) VALUES (NEW.address, nextval('proxy_mark_numbers'))
  ON CONFLICT (address) DO UPDATE SET mark = excluded.mark;
  RETURN NULL;
END $$;
CREATE TRIGGER contract_codes_proxy_check AFTER INSERT OR UPDATE ON contract_codes
  FOR EACH ROW EXECUTE FUNCTION mark_proxy_check();
INSERT INTO proxy_marks (address, mark) SELECT address, nextval('proxy_mark_numbers') FROM contract_codes;

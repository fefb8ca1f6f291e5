-- What E6 needs beyond E7: each frame's input (call data or init code) and output (return or
-- revert data, or created code). The top-level frame's input is the transaction's input and is not
-- stored twice (null at index 0). A null output with a null gas_used is Parity's "result": null.
-- Measured on mainnet blocks 15,537,394 and 17,073,191 (939 frames, 85% of them zero-value calls):
-- about 330 bytes a frame in the table and 420 in its indexes, against 800 in the node's JSON.
ALTER TABLE internal_transactions ADD COLUMN input bytea, ADD COLUMN output bytea;

-- A retraction asks for the metadata of the NFT ids it touched again. A read that began before it (the
-- node perhaps still on the branch that lost) must not be saved over that request, nor over a row the
-- retraction deleted and a later block created again: each request of an id's metadata gets a new mark
-- from one sequence, and a save applies only under the mark its read was started for.
CREATE SEQUENCE token_instance_metadata_marks;
ALTER TABLE token_instances ADD COLUMN metadata_mark bigint NOT NULL DEFAULT nextval('token_instance_metadata_marks');

-- name: google2019.collection_relations
-- description: the parent and start-after relations between collections, one row per edge, from every event that declares one.
-- grain: one row per (cell, collection_id, related_collection_id, relation)
-- note: events repeat (or omit) these fields; an edge counts once whichever events carry it.
CREATE OR REPLACE VIEW google2019.collection_relations AS
SELECT DISTINCT cell, collection_id, parent_collection_id AS related_collection_id, 'parent' AS relation
FROM google2019.collection_events WHERE parent_collection_id IS NOT NULL
UNION
SELECT DISTINCT cell, collection_id, unnest(start_after_collection_ids), 'start_after'
FROM google2019.collection_events WHERE array_length(start_after_collection_ids) > 0;

COMMENT ON VIEW google2019.collection_relations IS 'Edges between collections: relation = parent (killed when its parent exits) | start_after (runs after the related job finishes)';

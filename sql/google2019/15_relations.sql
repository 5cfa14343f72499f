-- name: google2019.collection_relations
-- purpose: the parent and start-after relations between collections, one row per edge.
-- grain: one row per (cell, collection_id, related_collection_id, relation)
CREATE OR REPLACE VIEW google2019.collection_relations AS
WITH latest AS (
    SELECT cell, collection_id,
           arg_max(parent_collection_id, (time, seq)) AS parent_collection_id,
           arg_max(start_after_collection_ids, (time, seq)) AS start_after_collection_ids
    FROM google2019.collection_events
    GROUP BY cell, collection_id
)
SELECT cell, collection_id, parent_collection_id AS related_collection_id, 'parent' AS relation
FROM latest WHERE parent_collection_id IS NOT NULL
UNION ALL
SELECT cell, collection_id, unnest(start_after_collection_ids), 'start_after'
FROM latest WHERE len(start_after_collection_ids) > 0;

COMMENT ON VIEW google2019.collection_relations IS 'Edges between collections: relation = parent (killed when its parent exits) | start_after (runs after the related job finishes)';

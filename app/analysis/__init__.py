"""Analysis of play against the strategy tables: the post-game review of every
decision, and live win chances (pure numerics in ``review`` and ``chances``;
``service`` stores, caches and runs them off the event loop)."""

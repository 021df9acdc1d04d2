"""The rollout ledger, read side: every rollout the scorer saw (scorer/ledger.py writes the records).

`names` holds where the records live (the dataset, the sink's table and filter), `bigquery` reads
them through BigQuery's `jobs.query` (the same code against Google and against the local stand-in,
tunifolk/standin/bigquery.py), `replay` re-scores them with this checkout's scorer, and
`tunifolk/tripwires.py` reads a step's records for signs of reward hacking.
"""

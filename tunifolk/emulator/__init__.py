"""tunifolk: a local Vertex AI `v1beta1` RLFT emulator, sharp edges included.

Run `python -m emulator --port 0 --step-seconds 0.01 --gcs-dir DIR`; the first stdout line is
`listening on http://127.0.0.1:PORT`. `python -m emulator --help` lists every scenario and fault
option. Modules:

- `app`: routes (tuning jobs, reward validation, judge probe, endpoints, models, operations,
  metadata context, tensorboard runs/series/batchRead/read) and the `/emulator/` admin routes:
  `GET /emulator/jobs` (every job with internal state), `GET /emulator/requests` (request counts
  per "METHOD path", every outgoing reward call with its body/attempt/status, faults injected),
  `GET /emulator/resources` (endpoints, models, operations).
- `jobs`: job store and the per-job lifecycle task; `policy`: the simulated poet and the stand-in
  judge; `rewards`: Cloud Run calls (retried, then NaN), autorater, string match, code execution;
  `metrics`: the series of docs/vertex.md, "Metrics"; `serving`: models, endpoints, LROs; `faults`: seeded
  fault injection; `checks`: strict request-body checks; `protojson`: ProtoJSON writing rules.

It imports nothing from the rest of the project: it reaches the scorer only over HTTP.
"""

"""tunifolk.emulator: a local Vertex AI `v1beta1` RLFT emulator, sharp edges included.

How it is run: `python -m tunifolk.emulator --port 0 --step-seconds 0.01 --gcs-dir DIR` (from a
checkout, the top-level shim `emulator/__main__.py` keeps `python -m emulator` working). The first
stdout line is `listening on http://127.0.0.1:PORT`; `--help` lists every scenario, hostile reading
(`--hostile` turns them all on) and fault option.

What it imports from the project: `tunifolk.job.shapes` (the request shapes its checks hold bodies
to, and the output-only fields a job's echo drops) and `tunifolk.job.limits` (the service limits
it shares with the job model, through `limits`) and `tunifolk.job.names` (a project's number, the
same the gcp stand-in gives it: names are answered with it) and `tunifolk.local_gcs` (the file
that holds a `gs://` object, by the same rules as the gcp stand-in) and `tunifolk.project_state`
(with `--project-dir`: whether aiplatform is enabled, and the agents a job's create makes). Nothing
else: it reaches the scorer only over HTTP, and mirrors the scorer's catalogue of forms instead of
importing it.

Modules:
- `app`: composes the route families over one `state.State` and dispatches (faults land here);
  `responses`: Google's error shapes and pages, body parsing.
- Route families: `api_tuning` (tuning jobs), `api_rewards` (reward validation, judge probe),
  `api_serving` (endpoints, models, operations), `api_metadata` (metadata context, tensorboard
  runs/series/read/batchRead), `admin` (`/emulator/jobs`, `/emulator/requests`,
  `/emulator/resources`: the introspection tests read).
- `guard`: who may call (loopback `Host` and `Origin` only, JSON bodies only), before any route.
- `code_execution`: code-execution rewards, only with `--allow-code-execution`, each in a
  subprocess with a time limit.
- `checks`: request-body shapes and the create-time rules; `limits`: the service limits.
- `jobs`: the job record and store; `lifecycle`: each job's run; `rewards`: Cloud Run calls
  (retried, then NaN), autorater, string match, code execution; `metrics`: the series of
  docs/vertex.md, "Metrics"; `serving`: models, endpoints, LROs; `faults`: seeded fault injection;
  `protojson`: ProtoJSON writing rules; `hostile`: the hostile readings (`--hostile`), each where
  Google's pages are silent or disagree, with the page it rests on.
- `policy`: the simulated poet and the stand-in judge; `words_table`: its forms and word lists
  (data).
"""

"""TuningDataset: the private bucket that holds the tuning JSONL, the uploaded files, and read access
for the tuning agent (granted explicitly rather than left to project-level defaults).

Object names carry a digest of the file's bytes, so a changed dataset is a new object and a new
`gs://` URI — which the tuning job treats as a change of spec, i.e. a deliberate replacement, never
a silent swap of the data under a running job.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import pulumi
import pulumi_gcp as gcp

from tunifolk.dataset.check import check_stream
from tunifolk.paths import ROOT

NONCURRENT_DAYS = 30
NEWER_VERSIONS = 3
NONCURRENT_LIFECYCLE = [
    {"action": {"type": "Delete"}, "condition": {"days_since_noncurrent_time": NONCURRENT_DAYS}},
    {
        "action": {"type": "Delete"},
        "condition": {"num_newer_versions": NEWER_VERSIONS, "with_state": "ARCHIVED"},
    },
]
"""Old dataset versions do not pile up. Versioning keeps a replaced or deleted dataset object as a
noncurrent generation (every changed dataset is a new object, named by its digest, and the old one is
deleted); GCS deletes a noncurrent generation 30 days after it stopped being live (time to recover a
dataset replaced by mistake), and any generation with 3 newer versions of the same name (an object
rewritten in place). Both are GCS lifecycle `Delete` rules (https://cloud.google.com/storage/docs/lifecycle:
`daysSinceNoncurrentTime`, `numNewerVersions` with `withState: ARCHIVED`, i.e. noncurrent)."""


KEPT_BUCKET_WARNING = (
    "tunifolk:forceDestroyBucket is false: `pulumi destroy` will stop on the dataset bucket, which GCS "
    "refuses to delete while it holds objects (409), and versioning keeps every replaced or deleted "
    "dataset as an old version; before destroying, run `pulumi config set tunifolk:forceDestroyBucket "
    "true` and `pulumi up`, or empty it (`gcloud storage rm --recursive --all-versions gs://BUCKET/**`, "
    "BUCKET the stack's `bucket` output)"
)
"""Said at every preview and up of a stack that keeps its bucket: destroy reads `forceDestroy` from the
state, so the setting must be changed by an `up` before the destroy it is for (pulumi-gcp's schema,
`gcp.storage.Bucket.forceDestroy`; the 409 is GCS's buckets.delete on a non-empty bucket)."""


def local_file(path: str, split: str = "train") -> Path:
    """A dataset file from config (`tunifolk:dataset.<split>`), checked before anything is uploaded.

    It must resolve (links followed) to a file inside the project root, and read as tuning JSONL by
    the project's own checker (`tunifolk.dataset.check`, what `tunifolk dataset check` runs): a path
    that pointed anywhere once uploaded /etc/passwd as 24 "examples"."""
    key = f"tunifolk:dataset.{split}"
    root = ROOT.resolve()
    resolved = (ROOT / path).resolve()
    if Path(path).is_absolute() or not resolved.is_relative_to(root):
        raise pulumi.RunError(
            f"{key}: {path} resolves to {resolved}, outside the project {root}: keep the dataset inside "
            "it, e.g. data/train.jsonl"
        )
    if not resolved.is_file():
        raise pulumi.RunError(
            f"{key}: the file {path} is not there (looked at {resolved}); build it with "
            "`python -m tunifolk dataset build --out data`"
        )
    with resolved.open("rb") as handle:
        report = check_stream(handle, split, resolved.stat().st_size)
    if report.problems:
        line, message = report.problems[0]
        where = f"{path}:{line}" if line is not None else path
        raise pulumi.RunError(
            f"{key}: {where}: {message} ({len(report.problems)} problem(s) in all); not uploaded: see "
            f"`python -m tunifolk dataset check {path}`"
        )
    return resolved


def count_examples(path: Path) -> int:
    """Examples in a JSONL file: its non-blank lines, counted at program time."""
    with path.open(encoding="utf-8") as f:
        return sum(1 for line in f if line.strip())


def object_name(prefix: str, split: str, path: Path) -> str:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    return f"{prefix}/{split}-{digest}.jsonl" if prefix else f"{split}-{digest}.jsonl"


@dataclass
class TuningDatasetArgs:
    location: str
    train_path: str
    validation_path: str | None = None
    prefix: str = "rlft/v1"
    force_destroy: bool = True
    labels: dict[str, str] = field(default_factory=dict)
    reader: pulumi.Input[str] | None = None  # an IAM member given roles/storage.objectViewer
    job_reader: str | None = None  # `tunifolk:serviceAccount`'s IAM member: it may read too (agents.py)


class TuningDataset(pulumi.ComponentResource):
    """A uniform-access, never-public, versioned bucket with the train and validation JSONL."""

    bucket: gcp.storage.Bucket
    train_uri: pulumi.Output[str]
    validation_uri: pulumi.Output[str] | None
    example_count: int
    validation_count: int | None
    reader_grant: gcp.storage.BucketIAMMember | None
    reader_grants: list[gcp.storage.BucketIAMMember]  # the agent's, and the job's account's if set

    def __init__(
        self, name: str, args: TuningDatasetArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("tunifolk:data:TuningDataset", name, None, opts)
        # children wait for what the component waits for (the project's APIs and agents: __main__.py)
        child = pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts else None)
        self.bucket = gcp.storage.Bucket(
            f"{name}-bucket",
            location=args.location,
            uniform_bucket_level_access=True,
            public_access_prevention="enforced",
            versioning={"enabled": True},
            lifecycle_rules=NONCURRENT_LIFECYCLE,
            force_destroy=args.force_destroy,
            labels=args.labels,
            opts=child,
        )
        if not args.force_destroy:
            pulumi.log.warn(KEPT_BUCKET_WARNING, resource=self.bucket)
        self.reader_grant = None
        self.reader_grants = []
        for suffix, member in (("reader", args.reader), ("job-reader", args.job_reader)):
            if member is None:
                continue
            grant = gcp.storage.BucketIAMMember(
                f"{name}-{suffix}",
                bucket=self.bucket.name,
                role="roles/storage.objectViewer",
                member=member,
                opts=child,
            )
            self.reader_grants.append(grant)
            self.reader_grant = self.reader_grant or grant
        train = local_file(args.train_path, "train")
        self.example_count = count_examples(train)
        self.train_uri = self._upload(name, "train", train, args.prefix, child)
        self.validation_uri = None
        self.validation_count = None
        if args.validation_path:
            validation = local_file(args.validation_path, "validation")
            self.validation_count = count_examples(validation)
            self.validation_uri = self._upload(name, "validation", validation, args.prefix, child)
        self.register_outputs(
            {
                "bucket": self.bucket.name,
                "train_uri": self.train_uri,
                "validation_uri": self.validation_uri,
                "example_count": self.example_count,
            }
        )

    def _upload(
        self, name: str, split: str, path: Path, prefix: str, opts: pulumi.ResourceOptions
    ) -> pulumi.Output[str]:
        obj = gcp.storage.BucketObject(
            f"{name}-{split}",
            bucket=self.bucket.name,
            name=object_name(prefix, split, path),
            source=pulumi.FileAsset(str(path)),
            content_type="application/jsonl",
            opts=opts,
        )
        return pulumi.Output.concat("gs://", self.bucket.name, "/", obj.output_name)

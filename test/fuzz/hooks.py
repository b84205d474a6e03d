"""Schemathesis hooks for the CI fuzz step (test/fuzz/run.ts; docs/api.md, "Fuzzing").

One custom check replaces the built-in `positive_data_acceptance`: a schema-valid request may be
refused with 422 only for a rule the OpenAPI document cannot state (a referenced site or schema
that does not exist, an expiry in the past, a CSS selector that does not parse, a schema text that
is not a schema, a duplicate chain entry, `from` after `to`). The API tells the two apart: a 422 for a
rule the document states (type, length, enum, pattern, format, unknown field) carries
SCHEMA_MISMATCH_DETAIL (libs/http/src/validation.pipe.ts), and such a 422 on a schema-valid request
is still a finding, as is any other refusal the built-in check reports. A reused Idempotency-Key (422
idempotency-key-reused) depends on an earlier request, so it is allowed too.

The Firecrawl-compatible /v2 (docs/firecrawl.md) has its own rules, since it answers Firecrawl's error shape
(`{success: false, error, code}`) with 400 where Gleaner says 422: a schema-valid /v2 request may be refused
with 400 when the option is one this server does not honour (`code: NOT_SUPPORTED`, by name) or for a rule of
Gleaner's own that the /v2 document cannot state (its `error` does not begin with V2_SCHEMA_MISMATCH, as /v2's
schema errors and Gleaner's own checks of what the document states do: libs/firecrawl/src/wire/errors.ts); the routes of Firecrawl features this
server does not have answer 501 `NOT_SUPPORTED` to anything.
"""

import builtins
import json
import threading

import schemathesis
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.specs.openapi.checks import _openapi_positive_data_acceptance

# Python 3.11's AST constructor keeps its recursion depth in per-interpreter state, not per thread: two of the
# fuzzer's worker threads in ast.parse/compile at once (a garbage collection inside one lets the other run)
# fail with "SystemError: AST constructor recursion depth mismatch" (Hypothesis parses source for its reports).
# It crashed CI's /v2 random pass three times in a row. One lock around compile(), which ast.parse calls, keeps
# the fuzzer's threads out of each other's way; the requests it sends are unaffected.
_COMPILE = builtins.compile
_COMPILE_LOCK = threading.RLock()


def _compile_one_at_a_time(*args, **kwargs):
    with _COMPILE_LOCK:
        return _COMPILE(*args, **kwargs)


builtins.compile = _compile_one_at_a_time

SCHEMA_MISMATCH_DETAIL = "The request does not match the API schema; errors[] points at each difference."
V2_SCHEMA_MISMATCH = "The request does not match the API schema; details lists each difference."

# URL list bodies of POST /batch/extract (docs/crawl.md "Batches"): JSON lines are text, sent as generated.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")
# WARC bodies of POST /warc-extract (docs/archive.md "WARC in"): raw bytes, sent as generated.
schemathesis.serializer.alias(["application/warc", "application/gzip"], "application/octet-stream")

# A 422 that depends on an earlier request, not on this one: the fuzzer sends one Idempotency-Key value with
# different bodies, which is the documented idempotency-key-reused refusal (docs/api.md "Idempotency-Key").
STATEFUL_422_TYPES = {"/problems/idempotency-key-reused"}


def _is_semantic_rejection(response) -> bool:
    if response.status_code != 422:
        return False
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    if isinstance(body, dict) and body.get("type") in STATEFUL_422_TYPES:
        return True
    return (
        isinstance(body, dict)
        and body.get("type") == "/problems/validation-error"
        and body.get("detail") != SCHEMA_MISMATCH_DETAIL
    )


def _is_v2_semantic_rejection(case, response) -> bool:
    if not case.path.startswith("/v2/") or response.status_code not in (400, 501):
        return False
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    if not isinstance(body, dict) or body.get("success") is not False:
        return False
    if body.get("code") == "NOT_SUPPORTED":
        return True
    return response.status_code == 400 and not str(body.get("error", "")).startswith(V2_SCHEMA_MISMATCH)


@schemathesis.check
def positive_data_acceptance_beyond_schema(ctx, response, case):
    """Schema-valid data is accepted, or refused (422; 400 on /v2) only for a rule the document cannot state."""
    try:
        return _openapi_positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if _is_semantic_rejection(response) or _is_v2_semantic_rejection(case, response):
            return None
        raise

"""The peer of the WCXB benchmark: trafilatura on every page of wcxb-dev, timed per page.

Usage: trafilatura_run.py CORPUS_DIR OUT_JSON. Pages are read as the TypeScript side reads them (gzip, UTF-8 with
replacement); the first 20 are extracted once before timing (imports and caches warm), then every page is timed
alone with perf_counter. Writes {"version", "pages": {id: {"text", "ms"}}}.
"""
import gzip
import json
import sys
import time
from importlib.metadata import version
from pathlib import Path

import trafilatura


def main() -> None:
    corpus, out = Path(sys.argv[1]) / "wcxb-dev" / "html", Path(sys.argv[2])
    files = sorted(corpus.glob("*.html.gz"))
    pages = [(f.name.split(".")[0], gzip.decompress(f.read_bytes()).decode("utf-8", errors="replace")) for f in files]
    for _, html in pages[:20]:
        trafilatura.extract(html, include_comments=False)
    results = {}
    for page_id, html in pages:
        started = time.perf_counter()
        text = trafilatura.extract(html, include_comments=False) or ""
        results[page_id] = {"text": text, "ms": (time.perf_counter() - started) * 1000}
    out.write_text(json.dumps({"version": version("trafilatura"), "pages": results}))


if __name__ == "__main__":
    main()

"""The peer of the WCXB benchmark: trafilatura on the pages of wcxb-dev, timed per page.

Usage:
  trafilatura_run.py CORPUS_DIR OUT_JSON   every page, once; writes {"version", "pages": {id: {"text", "ms", "cpuMs"}}}.
  trafilatura_run.py CORPUS_DIR --serve    a chunk at a time, for the benchmark to interleave with Gleaner's chunks
                                           (test/bench/content/wcxb.ts): prints {"version"} once ready, then reads one
                                           JSON list of page ids a line and answers one JSON line {id: {...}} each.
Pages are read as the TypeScript side reads them (gzip, UTF-8 with replacement); the first 20 are extracted once
before timing (imports and caches warm), then every page is timed alone: wall time with perf_counter, the process's
CPU time with process_time.
"""
import gzip
import json
import sys
import time
from importlib.metadata import version
from pathlib import Path

import trafilatura


def load(corpus: Path) -> dict:
    files = sorted((corpus / "wcxb-dev" / "html").glob("*.html.gz"))
    return {f.name.split(".")[0]: gzip.decompress(f.read_bytes()).decode("utf-8", errors="replace") for f in files}


def extract(html: str) -> dict:
    wall, cpu = time.perf_counter(), time.process_time()
    text = trafilatura.extract(html, include_comments=False) or ""
    return {"text": text, "ms": (time.perf_counter() - wall) * 1000, "cpuMs": (time.process_time() - cpu) * 1000}


def main() -> None:
    pages = load(Path(sys.argv[1]))
    for html in list(pages.values())[:20]:
        trafilatura.extract(html, include_comments=False)
    if sys.argv[2] == "--serve":
        print(json.dumps({"version": version("trafilatura")}), flush=True)
        for line in sys.stdin:
            ids = json.loads(line)
            print(json.dumps({page_id: extract(pages[page_id]) for page_id in ids}), flush=True)
        return
    results = {page_id: extract(html) for page_id, html in pages.items()}
    Path(sys.argv[2]).write_text(json.dumps({"version": version("trafilatura"), "pages": results}))


if __name__ == "__main__":
    main()

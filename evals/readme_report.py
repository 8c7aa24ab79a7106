"""The README's picture of the main command's HTML report, taken from the current product.

    python -m evals.readme_report [--out docs/report.png]

Runs the README's first command's investigation (its claim, over the SciFact corpus from
shared/data, ingested into the benchmarks' work store) with `--format html`, opens the report in
headless Chromium and photographs its top: the verdict, the explanation with its citations and the
start of the aspect tree. Re-run it after a change that alters the demo's report; the README's
picture is whatever it last wrote. Also writes the report itself beside the work store
(evals/work/readme_report.html) for reading.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

from evals._harness import REPO, SHARED, WORK

README = REPO / "README.md"
VIEW = {"width": 1100, "height": 1000}


def readme_claim() -> str:
    """The claim the README's first command investigates (the first quoted argument of `investigate`)."""
    found = re.search(r'claimscope investigate "([^"]+)"', README.read_text(encoding="utf-8"))
    if not found:
        sys.exit("README.md has no `claimscope investigate \"...\"` command to photograph")
    return found.group(1)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "report.png")
    args = ap.parse_args(argv)
    corpus = SHARED / "scifact" / "corpus.jsonl"
    if not corpus.is_file():
        sys.exit(f"SciFact corpus not found at {corpus}; set CLAIMSCOPE_SHARED_DATA")
    html = WORK / "readme_report.html"
    env = {**os.environ, "CLAIMSCOPE_DATA_DIR": str(WORK / "data")}
    # The command itself, as the README runs it (ingest is idempotent: a no-op once the store has it).
    cli = Path(sys.executable).with_name("claimscope")
    subprocess.run([str(cli), "investigate", readme_claim(), "--ingest", str(corpus), "--corpus", "scifact",
                    "--format", "html", "--out", str(html)], check=True, env=env)

    from playwright.sync_api import sync_playwright

    from tests.test_web_browser import chromium_path

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport=VIEW)
            page.goto(html.resolve().as_uri())
            page.screenshot(path=str(args.out))
        finally:
            browser.close()
    print(f"wrote {args.out} from {html}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Adds catalog entries (crates/core/data/models.json) for the models listed in
crates/core/tests/data/params/catalog_additions.csv (id, name, family, config,
released).

Each entry's architecture is what the core's importer reads from the config
fixture (`cargo run --example import_config`), and its parameter count the one
transformers instantiated for the same fixture on the meta device
(hf_measured_2025.csv, hf_measured_catalog.csv); the script refuses an entry
where the two differ. Ids already in the catalog are left as they are.
    python3 scripts/catalog_from_fixtures.py
"""
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DATA = os.path.join(ROOT, "crates", "core", "tests", "data")
CATALOG = os.path.join(ROOT, "crates", "core", "data", "models.json")
MEASURED = ["hf_measured_2025.csv", "hf_measured_catalog.csv"]


def main():
    with open(os.path.join(DATA, "params", "catalog_additions.csv"), newline="") as f:
        wanted = list(csv.DictReader(f))
    counts = {}
    for table in MEASURED:
        with open(os.path.join(DATA, "params", table), newline="") as f:
            for row in csv.DictReader(f):
                counts[row["config"]] = (int(row["num_parameters"]), table)
    with open(CATALOG, encoding="utf-8") as f:
        catalog = json.load(f)
    known = {m["id"] for m in catalog}
    todo = [w for w in wanted if w["id"] not in known]
    files = [os.path.join(DATA, "configs", w["config"]) for w in todo]
    out = subprocess.run(
        ["cargo", "run", "-q", "-p", "vramfit-core", "--example", "import_config", "--", *files],
        cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr)
    imported = [json.loads(line) for line in out.stdout.splitlines()]
    added = 0
    for w, model in zip(todo, imported):
        measured, table = counts[w["config"]]
        if model["params"] != measured:
            sys.exit(f"{w['config']}: importer {model['params']} vs transformers {measured}")
        text_only = "--text_config" in w["config"]
        name = w["name"] + (" (text)" if text_only else "")
        spec = dict(sorted(dict(model["spec"], name=name).items()))
        source = (f"config.json of {w['id']} (tests/data/configs/{w['config']}"
                  + ("; the language model's text_config: its vision tower is not modelled yet" if text_only else "")
                  + f"); count: transformers 5.24.0 meta-device count (tests/data/params/{table}); released {w['released']}")
        catalog.append({"id": w["id"], "name": name, "family": w["family"],
                        "params": measured, "source": source, "spec": spec})
        added += 1
    with open(CATALOG, "w", encoding="utf-8") as f:
        json.dump(catalog, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"catalog: {added} added, {len(catalog)} models")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# Writes the malformed result files of this directory and EXPECT (file, then the text the error
# must contain: the key path or the JSON position). Large files (enormous arrays, 50 MB, deep
# nesting) are made at test time by tests/e2e/t-bad-input.sh instead of being committed.
import copy, json, os

here = os.path.dirname(os.path.abspath(__file__))
good = {
    "schema": "tracebench-result/1",
    "tool": {"name": "tracebench", "version": "0.1.0"},
    "scenario": {"name": "bad", "path": "bad.ini", "text": "[global]\n"},
    "partial": False,
    "settings": {"seed": 1, "rounds": 2, "warmup": 0, "duration_ns": 1000000},
    "cells": [
        {"id": "w/none", "workload": "w", "tracer": "none", "baseline": True,
         "samples": [{"round": 0, "ns_per_op": 100.0}, {"round": 1, "ns_per_op": 101.0}]},
        {"id": "w/t", "workload": "w", "tracer": "t", "baseline": False,
         "events_recorded": 20, "events_lost": 0,
         "samples": [{"round": 0, "ns_per_op": 150.0, "events": 10},
                     {"round": 1, "ns_per_op": 151.0, "events": 10}]},
    ],
}
expect = []

def write(name, doc, needle, raw=None):
    with open(os.path.join(here, name), "w") as f:
        f.write(raw if raw is not None else json.dumps(doc, indent=1) + "\n")
    expect.append((name, needle))

def mutate(name, needle, fn):
    d = copy.deepcopy(good)
    fn(d)
    write(name, d, needle)

def setp(path, value):
    def fn(d):
        o = d
        for k in path[:-1]:
            o = o[k]
        o[path[-1]] = value
    return fn

def delp(path):
    def fn(d):
        o = d
        for k in path[:-1]:
            o = o[k]
        del o[path[-1]]
    return fn

# Not JSON at all.
write("malformed.json", None, "malformed JSON", raw='{"schema": "tracebench-result/1", "cells": [\n')
write("empty.json", None, "malformed JSON", raw="")
write("trailing-garbage.json", None, "malformed JSON", raw=json.dumps(good) + "\n}}garbage\n")
write("binary.json", None, "malformed JSON", raw="\x7fELF\x01\x01\x01\x00 binary junk \x01\x02\x03")
write("nan-literal.json", None, "malformed JSON", raw=json.dumps(good).replace("100.0", "NaN"))
write("huge-exponent.json", None, "malformed JSON", raw=json.dumps(good).replace("100.0", "1e999"))
write("duplicate-key.json", None, "malformed JSON",
      raw=json.dumps(good)[:-1] + ', "schema": "tracebench-result/1"}')
# Wrong shape or schema.
write("top-array.json", [good], "top level")
write("top-string.json", "tracebench-result/1", "malformed JSON")
mutate("no-schema.json", "schema", delp(["schema"]))
mutate("wrong-schema.json", "schema", setp(["schema"], "tracebench-result/999"))
mutate("schema-number.json", "schema", setp(["schema"], 1))
mutate("no-cells.json", "cells", delp(["cells"]))
mutate("cells-object.json", "cells", setp(["cells"], {"w/none": {}}))
mutate("cell-not-object.json", "cells[1]", setp(["cells", 1], "w/t"))
mutate("cell-no-id.json", "cells[0].id", delp(["cells", 0, "id"]))
mutate("cell-empty-id.json", "cells[0].id", setp(["cells", 0, "id"], ""))
mutate("duplicate-ids.json", "cells[1].id", setp(["cells", 1, "id"], "w/none"))
mutate("no-samples.json", "cells[1].samples", delp(["cells", 1, "samples"]))
# Wrong types.
mutate("ns-string.json", "cells[0].samples[1].ns_per_op",
       setp(["cells", 0, "samples", 1, "ns_per_op"], "101.0"))
mutate("ns-nan-string.json", "cells[1].samples[0].ns_per_op",
       setp(["cells", 1, "samples", 0, "ns_per_op"], "NaN"))
mutate("ns-null-object.json", "cells[1].samples[0].ns_per_op",
       setp(["cells", 1, "samples", 0, "ns_per_op"], {"value": 1}))
mutate("baseline-string.json", "cells[0].baseline", setp(["cells", 0, "baseline"], "yes"))
mutate("threads-zero.json", "cells[0].threads", setp(["cells", 0, "threads"], 0))
mutate("threads-float.json", "cells[0].threads", setp(["cells", 0, "threads"], 1.5))
mutate("system-array.json", "system", setp(["system"], ["linux"]))
mutate("warnings-numbers.json", "warnings[1]", setp(["warnings"], ["ok", 42]))
mutate("settings-alpha.json", "settings.alpha", setp(["settings", "alpha"], 7))
mutate("verdict-unknown.json", "cells[1].overhead.verdict",
       setp(["cells", 1, "overhead"], {"pct": 50.0, "verdict": "maybe"}))
mutate("ci-three.json", "cells[1].overhead.ci",
       setp(["cells", 1, "overhead"], {"pct": 50.0, "ci": [1, 2, 3]}))
mutate("buckets-unsorted.json", "cells[1].latency.buckets[1]",
       setp(["cells", 1, "latency"], {"count": 2, "buckets": [[20, 1], [10, 1]]}))
# Out of range.
mutate("negative-count.json", "cells[1].events_recorded",
       setp(["cells", 1, "events_recorded"], -5))
mutate("negative-lost.json", "cells[1].samples[0].lost",
       setp(["cells", 1, "samples", 0, "lost"], -2))
mutate("negative-ns.json", "cells[0].samples[0].ns_per_op",
       setp(["cells", 0, "samples", 0, "ns_per_op"], -1.0))
mutate("rounds-negative.json", "settings.rounds", setp(["settings", "rounds"], -3))
mutate("ops-huge.json", "cells[0].ops_per_sample",
       setp(["cells", 0, "ops_per_sample"], "184467440737095516160"))
# HTML and shell metacharacters are not malformed: they must load (and render inertly).
with open(os.path.join(here, "EXPECT"), "w") as f:
    f.write("# file<TAB>text the error message must contain (besides the file name)\n")
    for name, needle in expect:
        f.write(f"{name}\t{needle}\n")

"""Checks a STIX 2.1 bundle file written by `bulwark export --format stix` with the real stix2
and stix2-validator: the whole bundle parsed by stix2, every object validated by stix2-validator
(clients.validate_stix21). Reads the file named by BULWARK_STIX_BUNDLE; prints one JSON line."""

import json
import os
import sys

sys.path.insert(0, os.environ["BULWARK_CLIENTS_DIR"])
import clients  # noqa: E402

clients.use("stix2", "stix2-patterns", "stix2-validator")
import stix2  # noqa: E402

with open(os.environ["BULWARK_STIX_BUNDLE"], encoding="utf-8") as f:
    bundle = json.load(f)

parsed = stix2.parse(bundle, allow_custom=True, version="2.1")
invalid = []
for obj in bundle["objects"]:
    try:
        clients.validate_stix21(obj)
    except Exception as error:  # noqa: BLE001 - every failure is reported, not only the first
        invalid.append("%s: %s" % (obj.get("id"), error))
print(json.dumps({"type": parsed.type, "objects": len(parsed.objects), "validated": len(bundle["objects"]) - len(invalid), "invalid": invalid}))

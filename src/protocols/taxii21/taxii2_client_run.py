"""Drives the OASIS taxii2-client against a Bulwark TAXII 2.1 server and checks every object
it receives with stix2 and stix2-validator (clients.validate_stix21). Reads BULWARK_TAXII_BASE
(the service path of each application is appended), BULWARK_TAXII_USER, BULWARK_TAXII_PASSWORD,
BULWARK_TAXII_LIMIT; prints one JSON line with what it saw."""

import json
import os
import sys
import warnings

sys.path.insert(0, os.environ["BULWARK_CLIENTS_DIR"])
import clients  # noqa: E402

clients.use("taxii2-client", "stix2", "stix2-patterns", "stix2-validator")
warnings.filterwarnings("ignore")  # urllib3 warns on every request to the self-signed test certificate
from taxii2client.v21 import Server, as_pages  # noqa: E402

BASE = os.environ["BULWARK_TAXII_BASE"]
USER = os.environ["BULWARK_TAXII_USER"]
PASSWORD = os.environ["BULWARK_TAXII_PASSWORD"]
LIMIT = int(os.environ["BULWARK_TAXII_LIMIT"])


def objects_of(envelopes):
    out = []
    pages = 0
    for envelope in envelopes:
        pages += 1
        out.extend(envelope.get("objects", []))
    return out, pages


def run(app, path):
    server = Server(BASE + path + "/taxii2/", user=USER, password=PASSWORD, verify=False)
    root = server.default
    result = {
        "title": server.title,
        "api_roots": [r.url for r in server.api_roots],
        "root_title": root.title,
        "versions": root.versions,
        "max_content_length": root.max_content_length,
        "collections": {},
    }
    invalid = []
    validated = 0
    for collection in root.collections:
        objects, pages = objects_of(as_pages(collection.get_objects, per_request=LIMIT))
        for obj in objects:
            try:
                clients.validate_stix21(obj)
                validated += 1
            except Exception as error:  # noqa: BLE001 - report every refusal, not only the first
                invalid.append("%s: %s" % (obj.get("id"), error))
        entry = {
            "id": collection.id,
            "alias": collection.alias,
            "can_read": collection.can_read,
            "pages": pages,
            "ids": [o["id"] for o in objects],
            "indicators_only": [o["id"] for o in collection.get_objects(type="indicator").get("objects", [])],
        }
        indicators = [o for o in objects if o["type"] == "indicator"]
        if indicators:
            middle = indicators[len(indicators) // 2]
            after = collection.get_objects(added_after=middle["modified"]).get("objects", [])
            entry["added_after_middle"] = [o["id"] for o in after]
            entry["one"] = [o["id"] for o in collection.get_object(middle["id"]).get("objects", [])]
            entry["versions"] = collection.object_versions(middle["id"]).get("versions", [])
            entry["middle"] = {"id": middle["id"], "modified": middle["modified"]}
        if app == "1.0":
            records, manifest_pages = objects_of(as_pages(collection.get_manifest, per_request=LIMIT))
            entry["manifest"] = [r["id"] for r in records]
            entry["manifest_pages"] = manifest_pages
        result["collections"][collection.title] = entry
    result["validated"] = validated
    result["invalid"] = invalid
    return result


print(json.dumps({"2.0": run("2.0", "/api/services/taxii/v2/taxii"), "1.0": run("1.0", "/api/services/taxii/v1")}))

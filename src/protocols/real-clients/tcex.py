"""Drives the platform's current SDK (tcex, unmodified, v3 API objects) against a Bulwark.

Environment: BULWARK_CLIENTS_DIR, BULWARK_URL, BULWARK_ACCESS_ID, BULWARK_SECRET_KEY. Each check
is recorded with its outcome rather than stopping the run; the last line is the JSON of all checks.
"""
import json
import os
import sys
import tempfile
import traceback
from collections import OrderedDict

sys.path.insert(0, os.environ["BULWARK_CLIENTS_DIR"])
import clients  # noqa: E402

clients.use("tcex")
os.chdir(tempfile.mkdtemp())  # tcex writes its log folder relative to the working directory
from tcex import TcEx  # noqa: E402
from tcex.api.tc.v3.tql.tql_operator import TqlOperator  # noqa: E402

tcex = TcEx(config={
    "tc_api_path": os.environ["BULWARK_URL"] + "/api",
    "tc_api_access_id": os.environ["BULWARK_ACCESS_ID"],
    "tc_api_secret_key": os.environ["BULWARK_SECRET_KEY"],
    "tc_verify": False,  # the test server's certificate is self-signed
    "tc_log_path": tempfile.mkdtemp(),
    "tc_log_level": "error",
})
v3 = tcex.api.tc.v3
session = tcex.session.tc
results = OrderedDict()


def check(name):
    def run(fn):
        try:
            results[name] = {"ok": True, "value": fn()}
        except Exception as error:  # noqa: BLE001 - every failure is reported, not raised
            results[name] = {"ok": False, "error": "%s: %s" % (type(error).__name__, str(error)[:1500]),
                             "trace": traceback.format_exc()[-1500:]}
        return fn
    return run


def summaries(collection):
    return sorted(i.model.summary for i in collection)


IDS = {}


@check("OPTIONS: fields and TQL keywords")
def _():
    fields = [f["name"] for f in v3.indicator().fields]
    keywords = v3.indicators().tql_keywords
    group_keywords = v3.groups().tql_keywords
    return {"fields include": sorted(set(fields) & {"threatAssess", "tags", "associatedGroups", "sightings"}),
            "indicator keywords include": sorted(set(keywords) & {"hasGroup", "summary", "tag", "rating", "typeName"}),
            "group keywords include": sorted(set(group_keywords) & {"hasIndicator", "typeName", "name"})}


@check("nested create: a Group with new Indicators, tags, attributes and a label")
def _():
    group = v3.group(type="Adversary", name="tcex Adversary")
    for host in ["a.tcex.example", "b.tcex.example", "c.tcex.example"]:
        group.stage_associated_indicator({"type": "Host", "hostName": host, "rating": 2, "confidence": 40})
    group.stage_tag({"name": "tcex tag"})
    group.stage_attribute({"type": "Description", "value": "made by tcex", "default": True})
    group.stage_security_label({"name": "TLP:GREEN"})
    group.create()
    IDS["adversary"] = group.model.id
    again = v3.group(id=group.model.id)
    again.get(params={"fields": ["associatedIndicators", "tags", "attributes", "securityLabels"]})
    m = again.model
    return {"name": m.name, "indicators": sorted(i.summary for i in m.associated_indicators.data),
            "tags": [t.name for t in m.tags.data], "attributes": [[a.type, a.value] for a in m.attributes.data],
            "labels": [s.name for s in m.security_labels.data]}


@check("nested create: an Indicator with a new Group and an existing one")
def _():
    ind = v3.indicator(type="Address", ip="198.51.100.20", rating=4, confidence=80)
    ind.stage_associated_group({"id": IDS["adversary"]})
    ind.stage_associated_group({"type": "Campaign", "name": "tcex Campaign"})
    ind.stage_tag({"name": "tcex tag"})
    ind.create()
    IDS["address"] = ind.model.id
    again = v3.indicator(id=ind.model.id)
    again.get(params={"fields": ["associatedGroups", "tags", "threatAssess"]})
    m = again.model
    return {"ip": m.ip, "groups": sorted(g.name for g in m.associated_groups.data), "tags": [t.name for t in m.tags.data],
            "threatAssess": [m.threat_assess_rating, m.threat_assess_confidence, m.threat_assess_score]}


@check("every Indicator type, created and read back")
def _():
    bodies = [
        {"type": "EmailAddress", "address": "tcex@example.org"},
        {"type": "File", "md5": "D41D8CD98F00B204E9800998ECF8427E", "sha256": "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"},
        {"type": "URL", "text": "https://tcex.example/path"},
        # tcex writes custom types' values as value1..value3
        {"type": "ASN", "value1": "ASN64502"},
        {"type": "CIDR", "value1": "203.0.113.0/25"},
        {"type": "Mutex", "value1": "tcex-mutex"},
        {"type": "Registry Key", "value1": "HKLM\\tcex", "value2": "v", "value3": "REG_DWORD"},
        {"type": "User Agent", "value1": "tcex/4"},
    ]
    out = {}
    for body in bodies:
        ind = v3.indicator(**body)
        ind.create()
        again = v3.indicator(id=ind.model.id)
        again.get()
        out[body["type"]] = again.model.summary
    return out


@check("TQL filters: summary, tag, typeName, rating, hasGroup")
def _():
    by_tag = v3.indicators()
    by_tag.filter.tag(TqlOperator.EQ, "tcex tag")
    by_summary = v3.indicators()
    by_summary.filter.summary(TqlOperator.STARTS_WITH, "b.tcex")
    by_type = v3.indicators()
    by_type.filter.type_name(TqlOperator.EQ, "Host")
    by_rating = v3.indicators()
    by_rating.filter.rating(TqlOperator.GT, 3)
    in_group = v3.indicators()
    in_group.filter.has_group.id(TqlOperator.EQ, IDS["adversary"])
    groups_with = v3.groups()
    groups_with.filter.has_indicator.summary(TqlOperator.EQ, "198.51.100.20")
    return {"tag": summaries(by_tag), "summary": summaries(by_summary), "typeName": summaries(by_type),
            "rating": summaries(by_rating), "hasGroup": summaries(in_group), "groups hasIndicator": sorted(g.model.name for g in groups_with)}


@check("sorting")
def _():
    hosts = v3.indicators(params={"sorting": "summary desc"})
    hosts.filter.type_name(TqlOperator.EQ, "Host")
    return [i.model.summary for i in hosts]


@check("paging: next followed by the SDK, prev given")
def _():
    walk = v3.indicators(params={"resultLimit": 2})
    walked = [i.model.summary for i in walk]
    first = session.get(os.environ["BULWARK_URL"] + "/api/v3/indicators", params={"resultLimit": 2, "resultStart": 0}).json()
    second = session.get(first["next"]).json()
    return {"walked": len(walked), "distinct": len(set(walked)), "first has prev": "prev" in first,
            "second has prev": "prev" in second, "second page": len(second["data"])}


@check("update: fields and tags")
def _():
    ind = v3.indicator(id=IDS["address"])
    ind.get()
    ind.model.rating = 5
    ind.model.confidence = 95
    ind.stage_tag({"name": "second tag"})
    ind.update()
    again = v3.indicator(id=IDS["address"])
    again.get(params={"fields": ["tags", "threatAssess"]})
    m = again.model
    return {"rating": m.rating, "confidence": m.confidence,
            "tags": sorted(t.name for t in m.tags.data), "threatAssessScore": m.threat_assess_score}


@check("association mode=delete")
def _():
    ind = v3.indicator(id=IDS["address"])
    ind.stage_associated_group({"id": IDS["adversary"]})
    ind.update(mode="delete")
    again = v3.indicator(id=IDS["address"])
    again.get(params={"fields": ["associatedGroups"]})
    tag_removed = v3.indicator(id=IDS["address"])
    tag_removed.stage_tag({"name": "second tag"})
    tag_removed.update(mode="delete")
    final = v3.indicator(id=IDS["address"])
    final.get(params={"fields": ["tags"]})
    return {"groups": sorted(g.name for g in again.model.associated_groups.data), "tags": sorted(t.name for t in final.model.tags.data)}


GROUP_BODIES = [
    {"type": "Adversary", "name": "g Adversary"},
    {"type": "Attack Pattern", "name": "g Attack Pattern"},
    {"type": "Campaign", "name": "g Campaign", "firstSeen": "2026-01-01T00:00:00Z"},
    {"type": "Course of Action", "name": "g Course of Action"},
    {"type": "Document", "name": "g Document", "fileName": "g.txt"},
    {"type": "Email", "name": "g Email", "subject": "s", "header": "h", "body": "b"},
    {"type": "Event", "name": "g Event", "eventDate": "2026-01-02T00:00:00Z"},
    {"type": "Incident", "name": "g Incident", "eventDate": "2026-01-03T00:00:00Z", "status": "Open"},
    {"type": "Intrusion Set", "name": "g Intrusion Set"},
    {"type": "Malware", "name": "g Malware"},
    {"type": "Report", "name": "g Report", "fileName": "g.pdf"},
    {"type": "Signature", "name": "g Signature", "fileName": "g.yar", "fileType": "YARA", "fileText": "rule g { condition: true }"},
    {"type": "Tactic", "name": "g Tactic"},
    {"type": "Threat", "name": "g Threat"},
    {"type": "Tool", "name": "g Tool"},
    {"type": "Vulnerability", "name": "g Vulnerability"},
]


def convert(key):
    return {"firstSeen": "first_seen", "fileName": "file_name", "eventDate": "event_date", "fileType": "file_type",
            "fileText": "file_text"}.get(key, key)


@check("every Group type: create, read with fields, update")
def _():
    out = {}
    for body in GROUP_BODIES:
        g = v3.group(**{convert(k): v for k, v in body.items()})
        g.stage_tag({"name": "every group"})
        g.create()
        IDS[body["type"]] = g.model.id
        g.model.name = body["name"] + " (renamed)"
        g.model.last_seen = "2026-03-01T00:00:00Z"
        g.update()
        again = v3.group(id=g.model.id)
        again.get(params={"fields": ["tags", "sightings"]})
        out[body["type"]] = [again.model.type, again.model.name, [t.name for t in again.model.tags.data],
                             str(again.model.last_seen)[:10] if again.model.last_seen else None]
    every = v3.groups()
    every.filter.tag(TqlOperator.EQ, "every group")
    out["listed by tag"] = len(list(every))
    return out


@check("Group files: upload, download, pdf")
def _():
    doc = v3.group(type="Document", name="tcex file", file_name="tcex.txt")
    doc.create()
    doc.upload(b"bytes from tcex")
    sig = v3.group(id=IDS["Signature"])
    pdf = v3.group(id=IDS["Adversary"]).pdf()
    return {"document": v3.group(id=doc.model.id).download().decode(), "signature": sig.download().decode(), "pdf": pdf[:5].decode()}


@check("victims and assets")
def _():
    victim = v3.victim(name="tcex Victim", org="Initrode", nationality="Elbonian")
    victim.stage_victim_asset({"type": "EmailAddress", "address": "v@initrode.example", "addressType": "Work"})
    victim.stage_victim_asset({"type": "NetworkAccount", "accountName": "vuser", "networkType": "AD"})
    victim.stage_victim_asset({"type": "Phone", "phone": "555-0199"})
    victim.stage_victim_asset({"type": "SocialNetwork", "accountName": "@v", "networkType": "Twitter"})
    victim.stage_victim_asset({"type": "WebSite", "website": "initrode.example"})
    victim.create()
    IDS["victim"] = victim.model.id
    again = v3.victim(id=victim.model.id)
    again.get(params={"fields": ["assets"]})
    assets = sorted([a.type, a.address or a.account_name or a.phone or a.website] for a in again.model.assets.data)
    email_asset = [a for a in again.model.assets.data if a.type == "EmailAddress"][0]
    asset = v3.victim_asset(id=email_asset.id)
    asset.get()
    asset.model.address = "changed@initrode.example"
    asset.update()
    changed = v3.victim_asset(id=email_asset.id)
    changed.get()
    group = v3.group(id=IDS["Incident"])
    group.stage_associated_victim_asset({"id": email_asset.id})
    group.update()
    linked = v3.group(id=IDS["Incident"])
    linked.get(params={"fields": ["associatedVictimAssets"]})
    listed = v3.victim_assets()
    listed.filter.victim_id(TqlOperator.EQ, victim.model.id)
    return {"victim": [again.model.name, again.model.org, again.model.nationality], "assets": assets,
            "updated address": changed.model.address,
            "group victim assets": [a.id == email_asset.id for a in linked.model.associated_victim_assets.data],
            "listed": len(list(listed))}


@check("bulk delete of intelligence is refused")
def _():
    r = session.delete(os.environ["BULWARK_URL"] + "/api/v3/indicators", params={"tql": 'typeName = "Host"'})
    left = v3.indicators()
    left.filter.type_name(TqlOperator.EQ, "Host")
    return {"status": r.status_code, "content-type": r.headers.get("content-type"), "body": r.json(), "hosts left": len(list(left))}


@check("delete, then a read is a 404 the SDK reports")
def _():
    out = {}
    for kind, make in [("indicator", lambda: v3.indicator(id=IDS["address"])), ("group", lambda: v3.group(id=IDS["Threat"])),
                       ("victim", lambda: v3.victim(id=IDS["victim"]))]:
        make().delete()
        try:
            make().get()
            out[kind] = "still there"
        except RuntimeError as error:
            out[kind] = "404" if "404" in str(error) else str(error)[:200]
    return out


print(json.dumps({"checks": results}, default=str))

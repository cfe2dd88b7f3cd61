"""cabby, unchanged, against Bulwark's TAXII 1.1 services: discovery, collection information,
a poll over 24 hours that needs Poll_Fulfillment, a wider window and an unknown collection.
Prints one JSON line last."""
import datetime
import json
import os
import sys

sys.path.insert(0, os.environ["BULWARK_CLIENTS_DIR"])
import clients  # noqa: E402

clients.use("cabby", "libtaxii")
from cabby import create_client  # noqa: E402
from cabby.exceptions import HTTPError, UnsuccessfulStatusError  # noqa: E402
from dateutil.parser import isoparse  # noqa: E402
from lxml import etree  # noqa: E402

env = os.environ
client = create_client(env["TAXII_HOST"], port=int(env["TAXII_PORT"]), discovery_path="/api/taxii/discovery/", use_https=True, version="1.1")
client.set_auth(username=env["TAXII_USER"], password=env["TAXII_PASSWORD"], verify_ssl=False)

out = {}
out["services"] = sorted([s.type, s.address, s.protocol] for s in client.discover_services())
out["collections"] = [[c.name, c.type, c.available, [b.id for b in c.content_bindings],
                       [p.address for p in c.polling_services]] for c in client.get_collections()]

begin = isoparse(env["POLL_BEGIN"])
end = begin + datetime.timedelta(hours=24)
NS = {"stix": "http://stix.mitre.org/stix-1", "indicator": "http://stix.mitre.org/Indicator-2"}
titles = []
blocks = 0
for block in client.poll(env["COLLECTION"], begin_date=begin, end_date=end):
    blocks += 1
    package = etree.fromstring(block.content)
    titles.extend(t.text for t in package.iterfind(".//stix:Indicator/indicator:Title", NS))
out["poll"] = {"blocks": blocks, "titles": titles}
out["count"] = client.get_content_count(env["COLLECTION"], begin_date=begin, end_date=end).count


def refusal(call):
    try:
        call()
    except UnsuccessfulStatusError as e:
        return [e.status, e.raw.message]
    except HTTPError as e:
        return ["HTTP", str(e)]
    return None


out["wider"] = refusal(lambda: list(client.poll(env["COLLECTION"], begin_date=begin, end_date=end + datetime.timedelta(seconds=1))))
out["unknown"] = refusal(lambda: list(client.poll("No Such Collection", begin_date=begin, end_date=end)))
bad = create_client(env["TAXII_HOST"], port=int(env["TAXII_PORT"]), discovery_path="/api/taxii/discovery/", use_https=True, version="1.1")
bad.set_auth(username=env["TAXII_USER"], password="wrong", verify_ssl=False)
out["bad_credentials"] = refusal(lambda: bad.get_collections(uri="/api/taxii/collection-management/"))
print(json.dumps(out))

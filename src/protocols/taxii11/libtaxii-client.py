"""libtaxii, unchanged, against Bulwark's TAXII 1.1 services: its own messages, its HTTP client
and its schema validator, for every message type Bulwark answers. Prints one JSON line last."""
import datetime
import json
import os
import ssl
import sys

sys.path.insert(0, os.environ["BULWARK_CLIENTS_DIR"])
import clients  # noqa: E402

clients.use("libtaxii")
import libtaxii  # noqa: E402
import libtaxii.clients as tc  # noqa: E402
import libtaxii.messages_11 as tm11  # noqa: E402
from libtaxii.constants import VID_TAXII_XML_11, RT_FULL, ST_SUCCESS  # noqa: E402
from libtaxii.validation import SchemaValidator  # noqa: E402
from dateutil.parser import isoparse  # noqa: E402

# libtaxii builds a server-side TLS context when verification is off (clients README): hand it a client one.
CONTEXT = clients.unverified_client_context()
ssl.create_default_context = lambda *args, **kwargs: CONTEXT

env = os.environ
HOST, PORT = env["TAXII_HOST"], int(env["TAXII_PORT"])
client = tc.HttpClient(auth_type=tc.HttpClient.AUTH_BASIC, use_https=True,
                       auth_credentials={"username": env["TAXII_USER"], "password": env["TAXII_PASSWORD"]})
validator = SchemaValidator(SchemaValidator.TAXII_11_SCHEMA)
invalid = []


def call(path, request):
    response = client.call_taxii_service2(HOST, path, VID_TAXII_XML_11, request.to_xml(), port=PORT)
    body = response.read()
    result = validator.validate_string(body)
    if not result.valid:
        invalid.append([request.message_type, [str(e) for e in result.error_log][:3]])
    message = tm11.get_message_from_xml(body)
    assert message.in_response_to == request.message_id, (message.in_response_to, request.message_id)
    return response, message


out = {}
response, discovery = call("/api/taxii/discovery/", tm11.DiscoveryRequest(message_id=tm11.generate_message_id()))
out["headers"] = [response.headers.get(h) for h in ("Content-Type", "X-TAXII-Content-Type", "X-TAXII-Protocol", "X-TAXII-Services")]
out["discovery"] = [[s.service_type, s.service_address, s.protocol_binding, s.message_bindings, [b.binding_id for b in s.inbox_service_accepted_content]]
                    for s in discovery.service_instances]

_, info = call("/api/taxii/collection-management/", tm11.CollectionInformationRequest(message_id=tm11.generate_message_id()))
out["collections"] = [[c.collection_name, c.collection_type, c.available, c.collection_description] for c in info.collection_informations]

begin = isoparse(env["POLL_BEGIN"])
params = tm11.PollParameters(response_type=RT_FULL)
poll = tm11.PollRequest(message_id=tm11.generate_message_id(), collection_name=env["COLLECTION"], exclusive_begin_timestamp_label=begin,
                        inclusive_end_timestamp_label=begin + datetime.timedelta(hours=24), poll_parameters=params)
_, part = call("/api/taxii/poll/", poll)
parts = [[part.message_type, part.more, part.result_part_number, len(part.content_blocks), part.record_count.record_count]]
blocks = len(part.content_blocks)
while part.more:
    request = tm11.PollFulfillmentRequest(message_id=tm11.generate_message_id(), collection_name=env["COLLECTION"],
                                          result_id=part.result_id, result_part_number=part.result_part_number + 1)
    _, part = call("/api/taxii/poll/", request)
    parts.append([part.message_type, part.more, part.result_part_number, len(part.content_blocks), part.record_count.record_count])
    blocks += len(part.content_blocks)
out["parts"] = parts
out["blocks"] = blocks
out["block_binding"] = part.content_blocks[0].content_binding.binding_id if part.content_blocks else None

wide = tm11.PollRequest(message_id=tm11.generate_message_id(), collection_name=env["COLLECTION"], exclusive_begin_timestamp_label=begin,
                        inclusive_end_timestamp_label=begin + datetime.timedelta(hours=25), poll_parameters=params)
_, status = call("/api/taxii/poll/", wide)
out["wide"] = [status.message_type, status.status_type, status.message]
inbox = tm11.InboxMessage(message_id=tm11.generate_message_id(), destination_collection_names=[env["COLLECTION"]])
_, status = call("/api/taxii/poll/", inbox)
out["inbox"] = [status.message_type, status.status_type]
out["invalid"] = invalid
print(json.dumps(out, default=str))

// The proto3 JSON mapping of the REST API: messages printed as `sparring --json` prints them
// (proto field names, defaults included), requests read strictly (unknown fields refused),
// and gRPC statuses as JSON errors with their HTTP codes.
#pragma once

#include <google/protobuf/message.h>

#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace sparring::coordinator::web {

// Returns a message in the proto3 JSON mapping with proto field names and defaults printed.
std::string to_json(const google::protobuf::Message& message);
// Reads a message from JSON; INVALID_ARGUMENT for malformed JSON or an unknown field.
absl::Status from_json(std::string_view json, google::protobuf::Message* message);
// Reads a message from URL parameters named after its fields (a repeated field may be given
// more than once); INVALID_ARGUMENT for an unknown name or a value of the wrong type.
absl::Status from_params(const std::multimap<std::string, std::string>& params,
                         google::protobuf::Message* message);
// Sets a field from its text (an integer or a string field); INVALID_ARGUMENT when it does
// not parse.
absl::Status set_field(std::string_view name, const std::string& text,
                       google::protobuf::Message* message);

// Returns the HTTP status of a gRPC status code (NOT_FOUND: 404, ...).
int http_status(absl::StatusCode code);
// Returns {"error": {"code": HTTP, "status": "NOT_FOUND", "message": "..."}}; code is the HTTP
// status answered when it is not the status code's own (413 for RESOURCE_EXHAUSTED, say).
std::string error_json(const absl::Status& status, int code = 0);

}  // namespace sparring::coordinator::web

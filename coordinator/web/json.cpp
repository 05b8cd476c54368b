#include "coordinator/web/json.h"

#include <google/protobuf/util/json_util.h>

#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "common/printable.h"

namespace sparring::coordinator::web {

namespace pb = google::protobuf;

namespace {

// An error repeats at most this much of what the request held (a name, a value, the JSON
// parser's account of a body): enough to find the mistake, never the request back.
constexpr size_t kEchoBytes = 64;
// And says at most this much in all.
constexpr size_t kErrorBytes = 512;

// Returns request text as an error quotes it: escaped and cut.
std::string echo(std::string_view text) {
    return printable(text, kEchoBytes);
}

// Returns text cut at a code-point boundary after max_bytes, "..." marking the cut.
std::string cut(std::string_view text, size_t max_bytes) {
    const std::string_view kept = utf8_prefix(text, max_bytes);
    return kept.size() == text.size() ? std::string(text) : std::string(kept) + "...";
}

}  // namespace

std::string to_json(const pb::Message& message) {
    std::string json;
    pb::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;
    options.always_print_primitive_fields = true;
    if (!pb::util::MessageToJsonString(message, &json, options).ok()) return "{}";
    return json;
}

absl::Status from_json(std::string_view json, pb::Message* message) {
    pb::util::JsonParseOptions options;
    options.ignore_unknown_fields = false;
    const auto status =
        pb::util::JsonStringToMessage(pb::StringPiece(json.data(), json.size()), message, options);
    if (!status.ok())
        return absl::InvalidArgumentError("malformed request: " +
                                          printable(std::string(status.message()), 2 * kEchoBytes));
    return absl::OkStatus();
}

absl::Status from_params(const std::multimap<std::string, std::string>& params,
                         pb::Message* message) {
    const pb::Descriptor* descriptor = message->GetDescriptor();
    nlohmann::json object = nlohmann::json::object();
    for (const auto& [name, value] : params) {
        const pb::FieldDescriptor* field = descriptor->FindFieldByName(name);
        if (!field) return absl::InvalidArgumentError("unknown parameter '" + echo(name) + "'");
        // The JSON parser takes numbers and enum names as strings, but booleans only bare.
        nlohmann::json item = value;
        if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_BOOL &&
            (value == "true" || value == "false"))
            item = value == "true";
        if (field->is_repeated())
            object[name].push_back(std::move(item));
        else
            object[name] = std::move(item);
    }
    return from_json(json_text(object), message);
}

absl::Status set_field(std::string_view name, const std::string& text, pb::Message* message) {
    const pb::FieldDescriptor* field = message->GetDescriptor()->FindFieldByName(std::string(name));
    if (!field) return absl::InternalError("no field " + std::string(name));
    const pb::Reflection* reflection = message->GetReflection();
    if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_STRING) {
        reflection->SetString(message, field, text);
        return absl::OkStatus();
    }
    try {
        size_t end = 0;
        if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT64) {  // a game number
            const unsigned long long value = std::stoull(text, &end);
            if (end != text.size()) throw std::invalid_argument(text);
            reflection->SetUInt64(message, field, value);
            return absl::OkStatus();
        }
        const long long value = std::stoll(text, &end);
        if (end != text.size()) throw std::invalid_argument(text);
        reflection->SetInt64(message, field, value);
        return absl::OkStatus();
    } catch (const std::exception&) {
        return absl::InvalidArgumentError(std::string(name) + " must be an integer, not '" +
                                          echo(text) + "'");
    }
}

int http_status(absl::StatusCode code) {
    switch (code) {
        case absl::StatusCode::kOk:
            return 200;
        case absl::StatusCode::kInvalidArgument:
        case absl::StatusCode::kOutOfRange:
            return 400;
        case absl::StatusCode::kUnauthenticated:
            return 401;
        case absl::StatusCode::kPermissionDenied:
            return 403;
        case absl::StatusCode::kNotFound:
            return 404;
        // Stopping a run that has ended, or adding a version that exists: a conflict with
        // the state of the resource.
        case absl::StatusCode::kAlreadyExists:
        case absl::StatusCode::kAborted:
        case absl::StatusCode::kFailedPrecondition:
            return 409;
        case absl::StatusCode::kResourceExhausted:
            return 429;
        case absl::StatusCode::kUnimplemented:
            return 501;
        case absl::StatusCode::kUnavailable:
            return 503;
        case absl::StatusCode::kDeadlineExceeded:
            return 504;
        default:
            return 500;
    }
}

std::string error_json(const absl::Status& status, int code) {
    nlohmann::json error = {{"code", code ? code : http_status(status.code())},
                            {"status", absl::StatusCodeToString(status.code())},
                            {"message", cut(std::string(status.message()), kErrorBytes)}};
    return json_text(nlohmann::json{{"error", error}});
}

}  // namespace sparring::coordinator::web

#include "coordinator/storage/json_column.h"

namespace sparring::coordinator {

std::string json_column(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace sparring::coordinator

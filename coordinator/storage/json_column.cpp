#include "coordinator/storage/json_column.h"

#include "common/json_text.h"

namespace sparring::coordinator {

std::string json_column(const nlohmann::json& value) {
    return json_text(value);
}

}  // namespace sparring::coordinator

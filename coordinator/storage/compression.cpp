#include "coordinator/storage/compression.h"

#include <zlib.h>

#include <stdexcept>

namespace sparring::coordinator {

namespace {

// One deflate state per thread, reset between streams: compress2 allocates and clears about
// 270 KB of state for every call, which cost more than compressing a game's PGN.
class Deflater {
  public:
    Deflater() {
        if (deflateInit(&z_, Z_DEFAULT_COMPRESSION) != Z_OK)
            throw std::runtime_error("zlib: cannot start compression");
    }
    ~Deflater() { deflateEnd(&z_); }
    Deflater(const Deflater&) = delete;
    Deflater& operator=(const Deflater&) = delete;

    std::string compress(std::string_view bytes) {
        if (deflateReset(&z_) != Z_OK) throw std::runtime_error("zlib: compression failed");
        std::string out(deflateBound(&z_, uLong(bytes.size())), '\0');
        z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
        z_.avail_in = uInt(bytes.size());
        z_.next_out = reinterpret_cast<Bytef*>(out.data());
        z_.avail_out = uInt(out.size());
        if (bytes.size() != z_.avail_in || out.size() != z_.avail_out ||
            deflate(&z_, Z_FINISH) != Z_STREAM_END)
            throw std::runtime_error("zlib: compression failed");
        out.resize(z_.total_out);
        return out;
    }

  private:
    z_stream z_{};
};

}  // namespace

std::string compress(std::string_view bytes) {
    thread_local Deflater deflater;
    return deflater.compress(bytes);
}

std::optional<std::string> decompress(std::string_view stream, std::size_t max_bytes) {
    z_stream z{};
    if (inflateInit(&z) != Z_OK) return std::nullopt;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stream.data()));
    z.avail_in = uInt(stream.size());
    std::string out;
    char buffer[16384];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(buffer);
        z.avail_out = sizeof buffer;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buffer, sizeof buffer - z.avail_out);
        if (out.size() > max_bytes) break;
        if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END || out.size() > max_bytes) return std::nullopt;
    return out;
}

}  // namespace sparring::coordinator

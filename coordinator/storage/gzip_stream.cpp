#include "coordinator/storage/gzip_stream.h"

#include <zlib.h>

#include <stdexcept>

namespace sparring::coordinator {

struct GzipStream::State {
    z_stream z{};
    bool finished = false;
};

GzipStream::GzipStream() : state_(std::make_unique<State>()) {
    // windowBits 15 + 16: deflate with a gzip header and trailer; level 6, zlib's default.
    if (deflateInit2(&state_->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("gzip: deflateInit2 failed");
}

GzipStream::~GzipStream() {
    deflateEnd(&state_->z);
}

namespace {

// Runs deflate over the input with a flush mode, appending its output to *out.
void deflate_into(z_stream& z, std::string_view bytes, int flush, std::string* out) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = uInt(bytes.size());
    char buffer[16384];
    for (;;) {
        z.next_out = reinterpret_cast<Bytef*>(buffer);
        z.avail_out = sizeof buffer;
        const int status = deflate(&z, flush);
        if (status == Z_STREAM_ERROR) throw std::runtime_error("gzip: deflate failed");
        out->append(buffer, sizeof buffer - z.avail_out);
        if (flush == Z_FINISH ? status == Z_STREAM_END : z.avail_out != 0 && z.avail_in == 0) break;
    }
}

}  // namespace

void GzipStream::write(std::string_view bytes, std::string* out) {
    if (state_->finished) throw std::logic_error("gzip: write after finish");
    // Pieces of at most 1 GB: avail_in is 32 bits.
    while (!bytes.empty()) {
        const std::string_view piece = bytes.substr(0, size_t(1) << 30);
        deflate_into(state_->z, piece, Z_NO_FLUSH, out);
        bytes.remove_prefix(piece.size());
    }
}

void GzipStream::flush(std::string* out) {
    if (!state_->finished) deflate_into(state_->z, {}, Z_SYNC_FLUSH, out);
}

void GzipStream::finish(std::string* out) {
    if (state_->finished) return;
    deflate_into(state_->z, {}, Z_FINISH, out);
    state_->finished = true;
}

std::optional<std::string> gunzip(std::string_view stream) {
    z_stream z{};
    if (inflateInit2(&z, 15 + 16) != Z_OK) return std::nullopt;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stream.data()));
    z.avail_in = uInt(stream.size());
    std::string out;
    char buffer[65536];
    int status = Z_OK;
    while (status == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(buffer);
        z.avail_out = sizeof buffer;
        status = inflate(&z, Z_NO_FLUSH);
        out.append(buffer, sizeof buffer - z.avail_out);
    }
    const bool whole = status == Z_STREAM_END && z.avail_in == 0;
    inflateEnd(&z);
    if (!whole) return std::nullopt;
    return out;
}

}  // namespace sparring::coordinator

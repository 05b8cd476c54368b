#include "match/transcript.h"

#include <zlib.h>

#include <algorithm>

#include "match/child_process.h"
#include "match/player.h"

namespace sparring::match {

void ByteRing::append(std::string_view bytes) {
    std::lock_guard lock(mutex_);
    total_ += bytes.size();
    if (capacity_ == 0) return;
    if (bytes.size() >= capacity_) {
        data_.assign(bytes.substr(bytes.size() - capacity_));
        next_ = 0;
        return;
    }
    while (!bytes.empty()) {
        if (data_.size() < capacity_) {
            const std::size_t n = std::min(bytes.size(), capacity_ - data_.size());
            data_.append(bytes.substr(0, n));
            bytes.remove_prefix(n);
            continue;
        }
        const std::size_t n = std::min(bytes.size(), capacity_ - next_);
        data_.replace(next_, n, bytes.substr(0, n));
        next_ = (next_ + n) % capacity_;
        bytes.remove_prefix(n);
    }
}

void ByteRing::clear() {
    std::lock_guard lock(mutex_);
    data_.clear();
    next_ = 0;
    total_ = 0;
}

std::string ByteRing::text() const {
    std::lock_guard lock(mutex_);
    if (data_.size() < capacity_ || next_ == 0) return data_;
    return data_.substr(next_) + data_.substr(0, next_);
}

std::uint64_t ByteRing::total() const {
    std::lock_guard lock(mutex_);
    return total_;
}

void Transcript::begin() {
    start_ = Clock::now();
    head_.clear();
    tail_.clear();
    tail_bytes_ = 0;
    dropped_lines_ = 0;
    dropped_bytes_ = 0;
    last_position_.clear();
    last_go_.clear();
}

void Transcript::sent(std::string_view text) {
    while (true) {
        const std::size_t newline = text.find('\n');
        const std::string_view line = text.substr(0, newline);
        if (line.starts_with("position ")) last_position_ = line;
        if (line == "go" || line.starts_with("go ")) last_go_ = line;
        add('>', line);
        if (newline == std::string_view::npos) return;
        text.remove_prefix(newline + 1);
    }
}

void Transcript::received(std::string_view line) {
    add('<', line);
}

void Transcript::add(char direction, std::string_view line) {
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count();
    std::string entry = std::to_string(ms);
    if (entry.size() < 6) entry.insert(0, 6 - entry.size(), ' ');
    entry += ' ';
    entry += direction;
    entry += ' ';
    entry += line;
    entry += '\n';
    if (tail_.empty() && dropped_lines_ == 0 && head_.size() + entry.size() <= kHeadBytes) {
        head_ += entry;
        return;
    }
    tail_bytes_ += entry.size();
    tail_.push_back(std::move(entry));
    while (tail_bytes_ > kTailBytes && !tail_.empty()) {
        tail_bytes_ -= tail_.front().size();
        dropped_bytes_ += tail_.front().size();
        ++dropped_lines_;
        tail_.pop_front();
    }
}

std::string Transcript::text() const {
    std::string text = head_;
    if (dropped_lines_ > 0)
        text += "     ... " + std::to_string(dropped_lines_) + " lines (" +
                std::to_string(dropped_bytes_) + " bytes) left out ...\n";
    for (const std::string& entry : tail_) text += entry;
    return text;
}

FaultEvidence uci_fault_evidence(const UciSpec& engine, const Transcript& transcript,
                                 const ChildProcess& process) {
    FaultEvidence evidence;
    evidence.command = engine.command;
    evidence.args = engine.args;
    evidence.options = engine.options;
    evidence.position = transcript.last_position();
    evidence.go = transcript.last_go();
    evidence.transcript = transcript.text();
    evidence.transcript_complete = transcript.complete();
    evidence.stderr_tail = process.stderr_tail();
    evidence.stderr_bytes = process.stderr_bytes();
    return evidence;
}

std::string compress_evidence(std::string_view bytes) {
    uLongf size = compressBound(uLong(bytes.size()));
    std::string out(size, '\0');
    if (compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                  reinterpret_cast<const Bytef*>(bytes.data()), uLong(bytes.size()),
                  Z_BEST_COMPRESSION) != Z_OK)
        return "";
    out.resize(size);
    return out;
}

std::optional<std::string> inflate_evidence(std::string_view stream, std::size_t max_bytes) {
    z_stream z{};
    if (inflateInit(&z) != Z_OK) return std::nullopt;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stream.data()));
    z.avail_in = uInt(stream.size());
    std::string out;
    char chunk[16384];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(chunk);
        z.avail_out = sizeof chunk;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(chunk, sizeof chunk - z.avail_out);
        if (out.size() > max_bytes) rc = Z_MEM_ERROR;
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END || z.avail_in != 0) return std::nullopt;
    return out;
}

std::vector<std::string> sent_lines(std::string_view transcript) {
    std::vector<std::string> lines;
    while (!transcript.empty()) {
        const std::size_t newline = transcript.find('\n');
        std::string_view line = transcript.substr(0, newline);
        transcript.remove_prefix(newline == std::string_view::npos ? transcript.size()
                                                                   : newline + 1);
        const std::size_t mark = line.find(" > ");
        if (mark == std::string_view::npos) continue;
        const std::string_view time = line.substr(0, mark);
        if (time.find_first_not_of(" 0123456789") != std::string_view::npos) continue;
        lines.emplace_back(line.substr(mark + 3));
    }
    return lines;
}

}  // namespace sparring::match

// SqliteStorage, runs: their settings, books, follow-ups, links, changes and free pairs.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/domain/text.h"
#include "coordinator/storage/books.h"
#include "coordinator/storage/compression.h"
#include "coordinator/storage/json_column.h"
#include "coordinator/storage/sqlite_storage.h"
#include "coordinator/storage/stored_values.h"

namespace sparring::coordinator {

namespace {

#define RUN_SELECT                                                                               \
    "SELECT r.id, r.kind, r.state, r.result, r.test_version_id, r.base_version_id, "             \
    "r.time_control, r.book_source, r.book_size, r.book_random, r.book_seed, r.games, r.elo0, "  \
    "r.elo1, r.alpha, r.beta, r.model, r.priority, r.throughput, r.pairs_per_thread, "           \
    "r.description, r.next_pair, r.free_pairs, r.pairs_leased, r.active_leases, "                \
    "r.active_cores, r.pairs_done, r.wins, r.draws, r.losses, r.ll, r.ld, r.dd_wl, r.wd, r.ww, " \
    "r.elo, r.elo_low, r.elo_high, r.los, r.nelo, r.nelo_low, r.nelo_high, r.llr, r.llr_lower, " \
    "r.llr_upper, r.created_ms, r.finished_ms, t.name, b.name, r.draw_rule, r.resign_rule, "     \
    "r.max_plies, r.threads, "                                                                   \
    "(SELECT l.parent FROM run_links l WHERE l.child = r.id AND l.reason = 'submitted_like'), "  \
    "r.owner, "                                                                                  \
    "(SELECT l.child FROM run_links l WHERE l.parent = r.id AND l.reason = 'follow_up'), "       \
    "(SELECT l.parent FROM run_links l WHERE l.child = r.id AND l.reason = 'follow_up'), "       \
    "r.reference_nps "                                                                           \
    "FROM runs r "                                                                               \
    "JOIN versions t ON t.id = r.test_version_id JOIN versions b ON b.id = r.base_version_id "

// The filters of a RunQuery: ?1 states (",active,finished,"), ?2 kind, ?3 version, ?4 text,
// ?5 owner, ?6 time control, ?7 result prefix, ?8 and ?9 the creation times' range.
#define RUN_FILTER                                                                              \
    "WHERE (?1 = '' OR instr(?1, ',' || r.state || ',') > 0) AND (?2 = '' OR r.kind = ?2) "     \
    "AND (?3 = '' OR t.name = ?3 OR b.name = ?3) AND (?4 = '' OR instr(r.description, ?4) > 0 " \
    "OR instr(t.name, ?4) > 0 OR instr(b.name, ?4) > 0 OR instr(r.result, ?4) > 0) "            \
    "AND (?5 IS NULL OR r.owner = ?5) AND (?6 = '' OR r.time_control = ?6) "                    \
    "AND (?7 = '' OR substr(r.result, 1, length(?7)) = ?7) AND r.created_ms >= ?8 "             \
    "AND r.created_ms < ?9 "

// Returns a stored time control: a limit games are played at, or the "nodes=0" of the runs
// that play none (training runs, imported positions).
TimeControl read_time_control(const std::string& text) {
    const TimeControl none = RunSpec{}.time_control;
    if (text == none.to_string()) return none;
    return require(parse_time_control(text), "time control");
}

// Reads a run from the current row of a statement selecting RUN_SELECT.
Run read_run(const Statement& s) {
    Run r;
    r.id = s.int64(0);
    r.spec.kind = require(parse_run_kind(s.text(1)), "run kind");
    r.state = require(parse_run_state(s.text(2)), "run state");
    r.result = s.text(3);
    r.test_id = s.int64(4);
    r.base_id = s.int64(5);
    r.spec.time_control = read_time_control(s.text(6));
    r.spec.book.source = s.text(7);
    r.book_size = uint64_t(s.int64(8));
    r.spec.book.random_order = s.int64(9) != 0;
    r.spec.book.seed = uint64_t(s.int64(10));
    r.spec.games = uint64_t(s.int64(11));
    if (!s.is_null(12)) {
        r.spec.sprt_stored = true;
        r.spec.sprt.elo0 = s.real(12);
        r.spec.sprt.elo1 = s.real(13);
        r.spec.sprt.alpha = s.real(14);
        r.spec.sprt.beta = s.real(15);
        stats::parse_model(s.text(16), &r.spec.sprt.model);
    }
    r.spec.priority = int(s.int64(17));
    r.spec.throughput = int(s.int64(18));
    r.spec.pairs_per_thread = int(s.int64(19));
    r.spec.description = s.text(20);
    r.next_pair = uint64_t(s.int64(21));
    r.free_pairs = uint64_t(s.int64(22));
    r.pairs_leased = uint64_t(s.int64(23));
    r.active_leases = int(s.int64(24));
    r.active_cores = int(s.int64(25));
    r.counts.pairs = s.int64(26);
    r.counts.wins = s.int64(27);
    r.counts.draws = s.int64(28);
    r.counts.losses = s.int64(29);
    for (int i = 0; i < 5; ++i) r.counts.penta.counts[size_t(i)] = s.int64(30 + i);
    r.elo.pairs = r.counts.pairs;
    r.elo.games = 2 * r.counts.pairs;
    r.elo.elo = s.real(35);
    r.elo.elo_low = s.real(36);
    r.elo.elo_high = s.real(37);
    r.elo.los = s.real(38);
    r.elo.nelo = s.real(39);
    r.elo.nelo_low = s.real(40);
    r.elo.nelo_high = s.real(41);
    r.sprt.llr = s.real(42);
    r.sprt.lower = s.real(43);
    r.sprt.upper = s.real(44);
    r.created_ms = s.int64(45);
    r.finished_ms = s.int64(46);
    r.spec.test_version = s.text(47);
    r.spec.base_version = s.text(48);
    if (const std::string draw = s.text(49); !draw.empty())
        r.spec.adjudication.draw = require(match::parse_draw_rule(draw), "draw rule");
    if (const std::string resign = s.text(50); !resign.empty())
        r.spec.adjudication.resign = require(match::parse_resign_rule(resign), "resign rule");
    r.spec.adjudication.max_plies = int(s.int64(51));
    r.spec.threads = int(s.int64(52));
    r.spec.origin_run_id = s.int64(53);
    r.spec.owner = s.text(54);
    r.follow_up_run_id = s.int64(55);
    r.follows_run_id = s.int64(56);
    r.spec.reference_nps = uint64_t(s.int64(57));
    return r;
}

}  // namespace

int64_t SqliteStorage::insert_run(const Run& r) {
    const bool sprt = r.spec.sprt_stored;
    const auto real_if = [sprt](double value) {
        return sprt ? std::optional<double>(value) : std::nullopt;
    };
    Statement& s = db_.prepare(
        "INSERT INTO runs (kind, state, test_version_id, base_version_id, time_control, "
        "book_source, book_size, book_random, book_seed, book, games, elo0, elo1, alpha, beta, "
        "model, priority, throughput, pairs_per_thread, description, llr_lower, llr_upper, "
        "created_ms, draw_rule, resign_rule, max_plies, threads, owner, reference_nps, book_id) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?, ?, ?)");
    const match::Adjudication& rules = r.spec.adjudication;
    // The book itself once in `books`, shared by every run of it; the run's own column empty.
    const int64_t book_id =
        store_book(db_, format_openings(r.spec.book.openings), r.spec.book.openings.size());
    s.bind(run_kind_name(r.spec.kind), run_state_name(r.state), r.test_id, r.base_id,
           r.spec.time_control.to_string(), r.spec.book.source,
           uint64_t(r.spec.book.openings.size()), r.spec.book.random_order, r.spec.book.seed,
           Blob{""}, r.spec.games, real_if(r.spec.sprt.elo0), real_if(r.spec.sprt.elo1),
           real_if(r.spec.sprt.alpha), real_if(r.spec.sprt.beta),
           sprt ? std::optional<std::string>(std::string(stats::model_name(r.spec.sprt.model)))
                : std::nullopt,
           r.spec.priority, r.spec.throughput, r.spec.pairs_per_thread, r.spec.description,
           r.sprt.lower, r.sprt.upper, r.created_ms,
           rules.draw ? match::draw_rule_text(*rules.draw) : std::string(),
           rules.resign ? match::resign_rule_text(*rules.resign) : std::string(), rules.max_plies,
           r.spec.threads, r.spec.owner, r.spec.reference_nps, book_id);
    s.run();
    return db_.last_insert_rowid();
}

std::optional<Run> SqliteStorage::find_run(int64_t id) {
    Statement& s = db_.prepare(RUN_SELECT "WHERE r.id = ?");
    s.bind(id);
    if (!s.step()) return std::nullopt;
    return read_run(s);
}

std::vector<Run> SqliteStorage::list_runs(const std::vector<RunState>& states, int limit) {
    Statement& s = db_.prepare(RUN_SELECT
                               "WHERE ? = '' OR instr(?, ',' || r.state || ',') > 0 "
                               "ORDER BY r.id DESC LIMIT ?");
    std::string filter;
    for (RunState state : states) filter += "," + std::string(run_state_name(state)) + ",";
    s.bind(filter, filter, limit);
    std::vector<Run> runs;
    while (s.step()) runs.push_back(read_run(s));
    return runs;
}

std::vector<Run> SqliteStorage::find_runs(const RunQuery& query, int64_t* total) {
    std::string states;
    for (RunState state : query.states) states += "," + std::string(run_state_name(state)) + ",";
    const std::string kind = query.kind ? std::string(run_kind_name(*query.kind)) : "";
    Statement& count = db_.prepare(
        "SELECT count(*) FROM runs r JOIN versions t ON t.id = r.test_version_id "
        "JOIN versions b ON b.id = r.base_version_id " RUN_FILTER);
    const int64_t until =
        query.created_until_ms > 0 ? query.created_until_ms : std::numeric_limits<int64_t>::max();
    count.bind(states, kind, query.version, query.text, query.owner, query.time_control,
               query.result, query.created_from_ms, until);
    *total = count.step() ? count.int64(0) : 0;
    Statement& s = db_.prepare(RUN_SELECT RUN_FILTER
                               "ORDER BY ?10 AND r.state = 'active' DESC, "
                               "CASE WHEN ?10 AND r.state = 'active' THEN r.priority END DESC, "
                               "r.id DESC LIMIT ?11 OFFSET ?12");
    s.bind(states, kind, query.version, query.text, query.owner, query.time_control, query.result,
           query.created_from_ms, until, query.active_first, query.limit, query.offset);
    std::vector<Run> runs;
    while (s.step()) runs.push_back(read_run(s));
    return runs;
}

Book SqliteStorage::load_book(int64_t run_id) {
    // A run whose book could not be moved into `books` by migration 21 still holds its own.
    Statement& s = db_.prepare(
        "SELECT coalesce(b.data, r.book), r.book_random, r.book_seed, r.book_source "
        "FROM runs r LEFT JOIN books b ON b.id = r.book_id WHERE r.id = ?");
    s.bind(run_id);
    if (!s.step()) throw StorageError("run " + std::to_string(run_id) + " has no book");
    Book book;
    book.openings = parse_openings(require(decompress(s.blob(0)), "opening book"));
    book.random_order = s.int64(1) != 0;
    book.seed = uint64_t(s.int64(2));
    book.source = s.text(3);
    return book;
}

void SqliteStorage::update_run_settings(const Run& r) {
    db_.prepare(
           "UPDATE runs SET priority = ?, throughput = ?, games = ?, description = ? WHERE id = ?")
        .bind(r.spec.priority, r.spec.throughput, r.spec.games, r.spec.description, r.id)
        .run();
}

void SqliteStorage::insert_follow_up(int64_t run_id, const FollowUpSpec& f) {
    using Real = std::optional<double>;
    const std::optional<stats::SprtParams>& s = f.sprt;
    db_.prepare(
           "INSERT INTO follow_ups (run_id, on_result, time_control, elo0, elo1, alpha, beta, "
           "model, games) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(
            run_id, f.on_result, f.time_control.to_string(), s ? Real(s->elo0) : std::nullopt,
            s ? Real(s->elo1) : std::nullopt, s ? Real(s->alpha) : std::nullopt,
            s ? Real(s->beta) : std::nullopt,
            s ? std::optional<std::string>(std::string(stats::model_name(s->model))) : std::nullopt,
            f.games)
        .run();
}

std::optional<FollowUpSpec> SqliteStorage::find_follow_up(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT on_result, time_control, elo0, elo1, alpha, beta, model, games "
        "FROM follow_ups WHERE run_id = ?");
    s.bind(run_id);
    if (!s.step()) return std::nullopt;
    FollowUpSpec f;
    f.on_result = s.text(0);
    f.time_control = read_time_control(s.text(1));
    if (!s.is_null(2)) {
        stats::SprtParams sprt;
        sprt.elo0 = s.real(2);
        sprt.elo1 = s.real(3);
        sprt.alpha = s.real(4);
        sprt.beta = s.real(5);
        if (!stats::parse_model(s.text(6), &sprt.model))
            throw StorageError("unreadable follow-up SPRT model in the database");
        f.sprt = sprt;
    }
    f.games = uint64_t(s.int64(7));
    s.reset();
    return f;
}

namespace {

// How run_links.reason names each reason.
constexpr std::array<std::pair<RunLinkReason, std::string_view>, 4> kLinkReasons = {{
    {RunLinkReason::Verifies, "verifies"},
    {RunLinkReason::ChainStep, "chain_step"},
    {RunLinkReason::FollowUp, "follow_up"},
    {RunLinkReason::SubmittedLike, "submitted_like"},
}};

}  // namespace

void SqliteStorage::insert_run_link(const RunLink& link) {
    const auto* reason = std::find_if(kLinkReasons.begin(), kLinkReasons.end(),
                                      [&](const auto& r) { return r.first == link.reason; });
    db_.prepare("INSERT INTO run_links (parent, child, reason) VALUES (?, ?, ?)")
        .bind(link.parent, link.child, std::string(reason->second))
        .run();
}

std::vector<RunLink> SqliteStorage::run_links(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT parent, child, reason FROM run_links WHERE parent = ?1 "
        "UNION ALL SELECT parent, child, reason FROM run_links WHERE child = ?1");
    s.bind(run_id);
    std::vector<RunLink> links;
    while (s.step()) {
        const std::string reason = s.text(2);
        const auto* named = std::find_if(kLinkReasons.begin(), kLinkReasons.end(),
                                         [&](const auto& r) { return r.second == reason; });
        if (named == kLinkReasons.end())
            throw StorageError("unknown run link reason '" + reason + "' in the database");
        links.push_back({s.int64(0), s.int64(1), named->first});
    }
    return links;
}

void SqliteStorage::insert_run_change(const RunChange& c) {
    db_.prepare(
           "INSERT INTO run_changes (run_id, changed_ms, user, field, old_value, new_value) "
           "VALUES (?, ?, ?, ?, ?, ?)")
        .bind(c.run_id, c.changed_ms, c.user, c.field, c.old_value, c.new_value)
        .run();
}

std::vector<RunChange> SqliteStorage::run_changes(int64_t run_id) {
    Statement& s = db_.prepare(
        "SELECT changed_ms, user, field, old_value, new_value FROM run_changes WHERE run_id = ? "
        "ORDER BY id");
    s.bind(run_id);
    std::vector<RunChange> changes;
    while (s.step())
        changes.push_back({run_id, s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4)});
    return changes;
}

int64_t SqliteStorage::count_active_runs_of_owner(std::string_view owner) {
    // By runs_by_state: the active runs are few, each user's bounded (--max-active-runs-per-user).
    Statement& s = db_.prepare(
        "SELECT count(*) FROM runs INDEXED BY runs_by_state WHERE state = 'active' AND owner = ?");
    s.bind(owner);
    return s.step() ? s.int64(0) : 0;
}

std::vector<RunChange> SqliteStorage::latest_run_changes(int64_t run_id, uint32_t skip_newest,
                                                         uint32_t limit, int64_t* total) {
    Statement& count = db_.prepare("SELECT count(*) FROM run_changes WHERE run_id = ?");
    count.bind(run_id);
    *total = count.step() ? count.int64(0) : 0;
    Statement& s = db_.prepare(
        "SELECT changed_ms, user, field, old_value, new_value FROM run_changes WHERE run_id = ? "
        "ORDER BY id DESC LIMIT ? OFFSET ?");
    s.bind(run_id, int64_t(limit), int64_t(skip_newest));
    std::vector<RunChange> changes;
    while (s.step())
        changes.push_back({run_id, s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4)});
    std::reverse(changes.begin(), changes.end());
    return changes;
}

void SqliteStorage::update_run(const Run& r) {
    const auto& p = r.counts.penta.counts;
    db_.prepare(
           "UPDATE runs SET state = ?, result = ?, next_pair = ?, free_pairs = ?, "
           "pairs_leased = ?, active_leases = ?, active_cores = ?, pairs_done = ?, wins = ?, "
           "draws = ?, losses = ?, ll = ?, ld = ?, dd_wl = ?, wd = ?, ww = ?, elo = ?, "
           "elo_low = ?, elo_high = ?, los = ?, nelo = ?, nelo_low = ?, nelo_high = ?, llr = ?, "
           "llr_lower = ?, llr_upper = ?, finished_ms = ? WHERE id = ?")
        .bind(run_state_name(r.state), r.result, r.next_pair, r.free_pairs, r.pairs_leased,
              r.active_leases, r.active_cores, r.counts.pairs, r.counts.wins, r.counts.draws,
              r.counts.losses, p[0], p[1], p[2], p[3], p[4], r.elo.elo, r.elo.elo_low,
              r.elo.elo_high, r.elo.los, r.elo.nelo, r.elo.nelo_low, r.elo.nelo_high, r.sprt.llr,
              r.sprt.lower, r.sprt.upper, r.finished_ms, r.id)
        .run();
}

void SqliteStorage::insert_free_pairs(int64_t run_id, PairRange range) {
    db_.prepare("INSERT INTO free_pairs (run_id, first_pair, pairs) VALUES (?, ?, ?)")
        .bind(run_id, range.first, range.count)
        .run();
}

std::optional<PairRange> SqliteStorage::take_free_pairs(int64_t run_id, uint64_t max_count) {
    Statement& s = db_.prepare(
        "SELECT first_pair, pairs FROM free_pairs WHERE run_id = ? ORDER BY first_pair LIMIT 1");
    s.bind(run_id);
    if (!s.step()) return std::nullopt;
    const PairRange range{uint64_t(s.int64(0)), uint64_t(s.int64(1))};
    s.reset();
    db_.prepare("DELETE FROM free_pairs WHERE run_id = ? AND first_pair = ?")
        .bind(run_id, range.first)
        .run();
    if (range.count <= max_count) return range;
    insert_free_pairs(run_id, {range.first + max_count, range.count - max_count});
    return PairRange{range.first, max_count};
}

void SqliteStorage::delete_free_pairs(int64_t run_id) {
    db_.prepare("DELETE FROM free_pairs WHERE run_id = ?").bind(run_id).run();
}

}  // namespace sparring::coordinator

#include "nertz/db/players.hpp"

namespace nertz::db {

namespace {

// The length in bytes of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), 0 when there is none.
std::size_t utf8Sequence(const std::string& s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x80) return 1;
    std::size_t n;
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else return 0;
    if (i + n > s.size() || b(i + 1) < lo || b(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
    return n;
}

// Code points of `s` when it is well-formed UTF-8; else throws naming the first bad byte.
std::size_t utf8Length(const std::string& s, const std::string& field) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < s.size(); ++count) {
        const std::size_t n = utf8Sequence(s, i);
        if (n == 0) {
            static const char* hex = "0123456789ABCDEF";
            const unsigned char c = static_cast<unsigned char>(s[i]);
            throw DbInputError(field, std::string("is not UTF-8 text (byte 0x") + hex[c >> 4] + hex[c & 15] +
                                          " at position " + std::to_string(i + 1) + ")");
        }
        i += n;
    }
    return count;
}

// The first `n` code points of well-formed UTF-8 `s`.
std::string utf8Prefix(const std::string& s, std::size_t n) {
    std::size_t i = 0;
    for (std::size_t k = 0; k < n && i < s.size(); ++k) i += utf8Sequence(s, i);
    return s.substr(0, i);
}

}  // namespace

void checkText(const std::string& text, const std::string& field) {
    utf8Length(text, field);
}

void checkName(const std::string& name, const std::string& field) {
    if (name.empty()) throw DbInputError(field, "must not be empty");
    if (utf8Length(name, field) > 64)
        throw DbInputError(field, "'" + utf8Prefix(name, 20) + "...' is longer than 64 characters");
    for (unsigned char c : name) {
        if (c < 0x20 || c == 0x7f || c == ',') {
            throw DbInputError(field, "'" + name + "' contains a comma or a control character");
        }
    }
    if (name.front() == ' ' || name.back() == ' ') throw DbInputError(field, "'" + name + "' starts or ends with a space");
}

std::int64_t PlayerRepo::add(const std::string& name, const std::string& createdAt) {
    checkName(name, "name");
    Transaction tx(db_);
    if (find(name)) throw DbInputError("name", "a player called '" + name + "' already exists");
    db_.cached("INSERT INTO players(name, created_at) VALUES(?, ?)")
        .bindAll(name, createdAt.empty() ? utcNow() : createdAt)
        .run();
    const std::int64_t id = db_.lastInsertId();
    tx.commit();
    return id;
}

std::vector<Player> PlayerRepo::list() {
    auto& st = db_.cached("SELECT id, name, created_at FROM players ORDER BY name");
    std::vector<Player> out;
    while (st.step()) out.push_back({st.getInt(0), st.getText(1), st.getText(2)});
    st.reset();
    return out;
}

void PlayerRepo::rename(const std::string& oldName, const std::string& newName) {
    checkName(newName, "new_name");
    Transaction tx(db_);
    const std::int64_t id = idOf(oldName, "old_name");
    if (find(newName)) throw DbInputError("new_name", "a player called '" + newName + "' already exists");
    db_.cached("UPDATE players SET name = ? WHERE id = ?").bindAll(newName, id).run();
    db_.cached("INSERT INTO audit_log(at, who, action, old_value, new_value) VALUES(?, 'cli', 'rename_player', ?, ?)")
        .bindAll(utcNow(), oldName, newName)
        .run();
    tx.commit();
}

std::optional<std::int64_t> PlayerRepo::find(const std::string& name) {
    auto& st = db_.cached("SELECT id FROM players WHERE name = ?");
    st.bind(1, name);
    std::optional<std::int64_t> id;
    if (st.step()) id = st.getInt(0);
    st.reset();
    return id;
}

std::int64_t PlayerRepo::idOf(const std::string& name, const std::string& field) {
    if (auto id = find(name)) return *id;
    throw DbInputError(field, "unknown player '" + name + "' (add it with: player add NAME)");
}

std::int64_t PlayerRepo::addDeck(const Deck& deck) {
    checkName(deck.name, "name");
    if (deck.colour) checkText(*deck.colour, "colour");
    Transaction tx(db_);
    const std::int64_t owner = idOf(deck.owner, "owner");
    auto& dup = db_.cached("SELECT 1 FROM decks WHERE owner_id = ? AND name = ?");
    dup.bindAll(owner, deck.name);
    const bool exists = dup.step();
    dup.reset();
    if (exists) throw DbInputError("name", deck.owner + " already has a deck called '" + deck.name + "'");
    db_.cached("INSERT INTO decks(owner_id, name, colour, back_signature) VALUES(?, ?, ?, ?)")
        .bindAll(owner, deck.name, deck.colour, deck.backSignature)
        .run();
    const std::int64_t id = db_.lastInsertId();
    tx.commit();
    return id;
}

std::vector<Deck> PlayerRepo::decks(const std::optional<std::string>& owner) {
    auto& st = db_.cached(
        "SELECT d.id, p.name, d.name, d.colour, d.back_signature FROM decks d JOIN players p ON p.id = d.owner_id "
        "WHERE ?1 IS NULL OR p.name = ?1 ORDER BY p.name, d.name");
    st.bind(1, owner);
    std::vector<Deck> out;
    while (st.step()) out.push_back({st.getInt(0), st.getText(1), st.getText(2), st.getOptText(3), st.getBlob(4)});
    st.reset();
    return out;
}

Deck PlayerRepo::deck(std::int64_t id) {
    auto& st = db_.cached(
        "SELECT d.id, p.name, d.name, d.colour, d.back_signature FROM decks d JOIN players p ON p.id = d.owner_id "
        "WHERE d.id = ?");
    st.bind(1, id);
    std::optional<Deck> out;
    if (st.step()) out = Deck{st.getInt(0), st.getText(1), st.getText(2), st.getOptText(3), st.getBlob(4)};
    st.reset();
    if (!out) throw DbInputError("deck", "no deck with id " + std::to_string(id));
    return *out;
}

std::optional<Deck> PlayerRepo::findDeck(const std::string& owner, const std::string& name) {
    auto& st = db_.cached(
        "SELECT d.id, p.name, d.name, d.colour, d.back_signature FROM decks d JOIN players p ON p.id = d.owner_id "
        "WHERE p.name = ? AND d.name = ?");
    st.bindAll(owner, name);
    std::optional<Deck> out;
    if (st.step()) out = Deck{st.getInt(0), st.getText(1), st.getText(2), st.getOptText(3), st.getBlob(4)};
    st.reset();
    return out;
}

void PlayerRepo::setDeckBack(std::int64_t deckId, const std::vector<std::uint8_t>& backSignature,
                             const std::optional<std::string>& colour) {
    if (colour && colour->empty()) throw DbInputError("colour", "must not be empty");
    if (colour) checkText(*colour, "colour");
    Transaction tx(db_);
    deck(deckId);  // exists?
    std::optional<std::vector<std::uint8_t>> blob;
    if (!backSignature.empty()) blob = backSignature;
    db_.cached("UPDATE decks SET back_signature = ? WHERE id = ?").bindAll(blob, deckId).run();
    if (colour) db_.cached("UPDATE decks SET colour = ? WHERE id = ?").bindAll(*colour, deckId).run();
    tx.commit();
}

}  // namespace nertz::db

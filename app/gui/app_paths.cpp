#include "app_paths.hpp"

#include <QDir>

#include "nertz/db/database.hpp"

namespace nertz::gui {

namespace {
QString xdg(const char* var, const char* fallback) {
    const QString v = qEnvironmentVariable(var);
    return v.isEmpty() ? QDir::homePath() + "/" + fallback : v;
}
}  // namespace

QString defaultDbPath() { return QString::fromStdString(db::defaultDatabasePath()); }

QString cacheDir() {
    const QString dir = xdg("XDG_CACHE_HOME", ".cache") + "/nertzref";
    QDir().mkpath(dir);
    return dir;
}

QString defaultUser() {
    const QString u = qEnvironmentVariable("USER");
    return u.isEmpty() ? QStringLiteral("app") : u;
}

}  // namespace nertz::gui

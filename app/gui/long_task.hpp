// Long work without freezing the window: runs a job on its own thread while a progress dialog
// shows (busy, or steps when the job reports them); the event loop keeps running meanwhile.
#pragma once
#include <QString>
#include <QStringList>
#include <functional>

class QWidget;

namespace nertz::gui {

// Reports progress from the job's thread: `done` of `total` steps (total 0: busy).
using Progress = std::function<void(int done, int total, const QString& label)>;

// Runs `job` on a worker thread under a modal QProgressDialog titled `label`. Returns the message
// of the exception the job threw, empty on success.
QString runWithProgress(QWidget* parent, const QString& label, const std::function<void(const Progress&)>& job);

// The nertzref-cli program: $NERTZ_CLI, else the one beside this one (installed together, or the build tree's app/cli), else
// on PATH; empty when there is none.
QString cliProgram();

// Runs nertzref-cli with `args`; throws std::runtime_error with its stderr when it fails.
QString runCli(const QStringList& args);

}  // namespace nertz::gui
